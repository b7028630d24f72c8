/**
 * An order's lifecycle moves (admin, sandbox advance, refund, settlement), each through
 * `transition` (src/domain/OrderState.ts).
 *
 * The contract (Orders.ts's header): one transaction holding the order row lock writes the
 * status, the timeline, the event and the listing's status; a refused move fails with
 * `OrderMoveNotAllowed` and the reason.
 */
import { Effect, Option } from "effect"
import { type OrderAction, transition } from "../../domain/OrderState.js"
import { partnerMayRefund } from "../../domain/RefundAuthority.js"
import { makeId } from "../../platform/Ids.js"
import type { PartnerIdentity } from "../Auth.js"
import { OrderMoveNotAllowed, OrderNotFound } from "./Errors.js"
import type { OrdersDeps } from "./Orders.js"
import type { OrderRow } from "./Repo.js"
import { eventOrder } from "./View.js"

/** The order, if `partner` (when given) owns it; else OrderNotFound. */
export const loadOwned = (
  d: OrdersDeps,
  publicId: string,
  partner: PartnerIdentity | undefined,
  forUpdate: boolean
) =>
  Effect.gen(function*() {
    const row = yield* d.repo.orderById(publicId, { forUpdate })
    if (
      Option.isNone(row) ||
      (partner && (row.value.partner_id !== partner.partnerId || row.value.environment !== partner.environment))
    ) {
      return yield* OrderNotFound.of(publicId)
    }
    return row.value
  })

export interface MoveOptions {
  readonly actor: string
  readonly partner?: PartnerIdentity
  readonly note?: string | undefined
  readonly refund?: { reason: string | null }
}

/** What follows the status write: the transfer step, the status row, the listing, the ledger, the refund. */
const afterMove = (
  d: OrdersDeps,
  order: OrderRow,
  updated: OrderRow,
  t: Extract<ReturnType<typeof transition>, { ok: true }>,
  eventId: string | null,
  options: MoveOptions
) =>
  Effect.gen(function*() {
    if (t.transferStep) {
      yield* d.repo.addTimeline({
        orderId: order.id,
        kind: "transfer_step",
        step: t.transferStep,
        actor: options.actor
      })
    }
    yield* d.repo.addTimeline({
      orderId: order.id,
      kind: "status",
      status: t.to,
      fromStatus: t.from,
      eventId,
      actor: options.actor,
      note: options.note ?? null
    })
    if (t.to === "TRANSFER_COMPLETED") yield* d.listings.setStatus(order.listing_id, "sold")
    // Cleared from manual review: deliverable now.
    if (t.to === "EXTERNALLY_PAID") yield* d.deliveries.deliverable(updated)
    if (t.to === "REFUNDED" || t.to === "CANCELLED") {
      yield* d.listings.setStatus(order.listing_id, "active")
      yield* d.books.reverseSale(updated)
    }
    let refundId: string | null = null
    if (options.refund) {
      refundId = makeId("rf")
      yield* d.repo.insertRefund({
        id: refundId,
        orderId: order.id,
        partnerId: order.partner_id,
        amountCents: order.sale_price_cents,
        reason: options.refund.reason
      })
    }
    return refundId
  })

/** One lifecycle move, in one transaction: status, timeline, event, listing. */
export const move = (d: OrdersDeps, publicId: string, action: OrderAction, options: MoveOptions) =>
  d.transaction(
    Effect.gen(function*() {
      const order = yield* loadOwned(d, publicId, options.partner, true)
      // A partner refunds only what it sold itself; any other order does not exist for it.
      if (
        options.refund && options.partner &&
        !partnerMayRefund(
          { partnerId: order.partner_id, environment: order.environment, paymentModel: order.payment_model },
          options.partner
        )
      ) return yield* OrderNotFound.of(publicId)
      const t = transition(order.status, action)
      if (!t.ok) return yield* new OrderMoveNotAllowed({ message: t.reason })
      const updated = yield* d.repo.updateStatus(order.id, t.to)
      const eventId = t.event === null
        ? null
        : yield* d.outbox.append({
          partnerId: order.partner_id,
          environment: order.environment,
          type: t.event,
          data: { order: eventOrder(updated) }
        })
      const refundId = yield* afterMove(d, order, updated, t, eventId, options)
      return { order: updated, eventId, refundId }
    })
  )
