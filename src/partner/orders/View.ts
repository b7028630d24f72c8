/**
 * What the Partner API shows of an order (pure): the values its success schemas (Api.ts) encode,
 * and the order as order events carry it (`data.order`).
 */
import { Option } from "effect"
import { iso } from "../Common.js"
import type { Order, OrderDetail, Refund, TimelineEntry } from "./Api.js"
import type { DeliveryView } from "./Deliveries.js"
import type { OrderRow, TimelineRow } from "./Repo.js"

export const orderOf = (o: OrderRow): typeof Order.Type => ({
  public_id: o.id,
  domain: o.domain,
  status: o.status,
  sale_price_cents: o.sale_price_cents,
  currency: o.currency,
  environment: o.environment,
  external_payment_ref: o.external_payment_ref,
  quote_id: o.quote_id,
  buyer: o.buyer,
  return_url: o.return_url,
  cancel_url: o.cancel_url,
  created_at: o.created_at.toISOString(),
  updated_at: o.updated_at.toISOString(),
  payment_model: o.payment_model,
  commission_cents: o.commission_cents,
  // A brokerage order's row keeps the case in listing_id and the fee as the sale (Repo.insertBrokerageOrder).
  brokerage: o.payment_model === "brokerage"
    ? { case_id: o.listing_id, deal_price_cents: o.deal_price_cents, fee_cents: o.sale_price_cents }
    : null
})

/** The order as carried by events: `data.order`. */
export const eventOrder = (o: Pick<OrderRow, "id" | "domain" | "status" | "sale_price_cents" | "currency">) => ({
  public_id: o.id,
  domain: o.domain,
  status: o.status,
  sale_price_cents: o.sale_price_cents,
  currency: o.currency
})

export const timelineEntryOf = (t: TimelineRow): typeof TimelineEntry.Type => ({
  at: t.at.toISOString(),
  type: t.kind,
  status: t.status,
  from_status: t.from_status,
  step: t.step,
  event_id: t.event_id,
  actor: t.actor,
  note: t.note
})

/**
 * Where the domain's transfer stands: the lifecycle's view from the timeline's transfer steps, and
 * the delivery's (src/fulfilment) when there is one; "pending" with no method before that.
 */
const transferOf = (
  o: OrderRow,
  timeline: ReadonlyArray<TimelineRow>,
  delivery: Option.Option<DeliveryView>
): typeof OrderDetail.Type["transfer"] => {
  const started = timeline.find((t) => t.kind === "transfer_step" && t.step === "push_initiated")
  const delivered = timeline.find((t) => t.kind === "transfer_step" && t.step === "delivered")
  const status = delivered
    ? "completed"
    : o.status === "REFUNDED" || o.status === "CANCELLED"
    ? (started ? "aborted" : "not_started")
    : started
    ? "in_progress"
    : "not_started"
  const d = Option.getOrUndefined(delivery)
  return {
    status,
    started_at: iso(started?.at ?? null),
    completed_at: iso(delivered?.at ?? null),
    // An order delivered by hand before (or without) a delivery reads as completed.
    state: d?.state ?? (delivered ? "completed" : "pending"),
    method: d?.method ?? null,
    target: d?.target ?? null,
    attempts: d?.attempts ?? 0,
    last_error: d?.last_error ?? null,
    updated_at: (d?.updated_at ?? o.updated_at).toISOString()
  }
}

export const orderDetailOf = (
  o: OrderRow,
  timeline: ReadonlyArray<TimelineRow>,
  delivery: Option.Option<DeliveryView> = Option.none()
): typeof OrderDetail.Type => ({
  ...orderOf(o),
  transfer: transferOf(o, timeline, delivery),
  timeline: timeline.map(timelineEntryOf)
})

/** A refund as the partner's and the operator's refund answer it (the order moved to REFUNDED). */
export const refundOf = (o: OrderRow, refundId: string): typeof Refund.Type => ({
  refund_id: refundId,
  order_id: o.id,
  amount_cents: o.sale_price_cents,
  currency: o.currency,
  status: "REFUNDED",
  created_at: o.updated_at.toISOString(),
  order: orderOf(o)
})
