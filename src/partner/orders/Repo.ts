/**
 * SQL for partner orders, their quotes, timeline and refunds (the listing they hold is market's:
 * src/market). Rows are decoded by the schemas below (money columns are `bigint`, numbers through
 * the driver's int8 parser on both databases); a database error is a defect here (`Effect.orDie`),
 * once, so the service sees only data.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { Fragment } from "@effect/sql/Statement"
import { Context, Effect, Layer, Schema } from "effect"
import { PAYMENT_MODELS, type PaymentModel } from "../../domain/Ledger.js"
import { ORDER_STATUSES, type OrderStatus } from "../../domain/OrderState.js"
import { bulkInsert } from "../../platform/db/BulkInsert.js"
import type { PartnerEnvironment } from "../Auth.js"

const Environment = Schema.Literal("live", "sandbox")
const Status = Schema.Literal(...ORDER_STATUSES)

export const Buyer = Schema.Struct({
  email: Schema.String,
  name: Schema.optional(Schema.String),
  country: Schema.optional(Schema.String)
})

export const OrderRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  credential_id: Schema.String,
  environment: Environment,
  listing_id: Schema.String,
  domain: Schema.String,
  status: Status,
  sale_price_cents: Schema.Number,
  currency: Schema.String,
  external_payment_ref: Schema.String,
  quote_id: Schema.NullOr(Schema.String),
  buyer: Buyer,
  return_url: Schema.NullOr(Schema.String),
  cancel_url: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  transfer_completed_at: Schema.NullOr(Schema.DateFromSelf),
  settled_at: Schema.NullOr(Schema.DateFromSelf),
  refunded_at: Schema.NullOr(Schema.DateFromSelf),
  /** Who collected the buyer's money (src/domain/Ledger.ts); partner orders: partner_collected. */
  payment_model: Schema.Literal(...PAYMENT_MODELS),
  /** The partner's commission rate when the order was created, frozen; and its amount. */
  commission_bps: Schema.Number,
  commission_cents: Schema.Number,
  /** Brokerage: the price buyer and seller agreed (the sale is the service's fee on it); else null. */
  deal_price_cents: Schema.NullOr(Schema.Number)
})
export type OrderRow = typeof OrderRow.Type

export const TimelineRow = Schema.Struct({
  seq: Schema.Number,
  kind: Schema.Literal("status", "transfer_step"),
  status: Schema.NullOr(Schema.String),
  from_status: Schema.NullOr(Schema.String),
  step: Schema.NullOr(Schema.String),
  event_id: Schema.NullOr(Schema.String),
  actor: Schema.String,
  note: Schema.NullOr(Schema.String),
  at: Schema.DateFromSelf
})
export type TimelineRow = typeof TimelineRow.Type

/** The listing an order is about, read under its row lock, with what the order's checks need. */
const ListingForOrder = Schema.Struct({
  id: Schema.String,
  domain: Schema.String,
  bin_price_cents: Schema.NullOr(Schema.Number),
  currency: Schema.String,
  status: Schema.Literal("active", "pending", "sold", "withdrawn"),
  locked: Schema.Boolean,
  held_by: Schema.NullOr(Schema.String),
  held_until: Schema.NullOr(Schema.DateFromSelf),
  open_order: Schema.NullOr(Schema.String),
  quote_found: Schema.Boolean,
  quote_used_by_order: Schema.NullOr(Schema.String)
})
export type ListingForOrder = typeof ListingForOrder.Type

const DueGroup = Schema.Struct({ partner_id: Schema.String, environment: Environment, currency: Schema.String })

export interface OrderFilters {
  readonly status?: OrderStatus | undefined
  readonly paymentModel?: PaymentModel | undefined
  readonly domain?: string | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}

const Filters = {
  status: Schema.optional(Status),
  paymentModel: Schema.optional(Schema.Literal(...PAYMENT_MODELS)),
  domain: Schema.optional(Schema.String),
  from: Schema.optional(Schema.DateFromSelf),
  to: Schema.optional(Schema.DateFromSelf)
}

const PartnerPage = Schema.Struct({
  ...Filters,
  partnerId: Schema.String,
  environment: Environment,
  beforeId: Schema.NullOr(Schema.String),
  limit: Schema.Number
})

const OperatorPage = Schema.Struct({
  ...Filters,
  partnerId: Schema.optional(Schema.String),
  environment: Schema.optional(Environment),
  limit: Schema.Number
})

const NewQuote = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  environment: Environment,
  listingId: Schema.String,
  domain: Schema.String,
  priceCents: Schema.Number,
  currency: Schema.String,
  expiresAt: Schema.DateFromSelf
})

const NewTimeline = Schema.Struct({
  orderId: Schema.String,
  kind: Schema.Literal("status", "transfer_step"),
  status: Schema.optional(Schema.NullOr(Schema.String)),
  fromStatus: Schema.optional(Schema.NullOr(Schema.String)),
  step: Schema.optional(Schema.NullOr(Schema.String)),
  eventId: Schema.optional(Schema.NullOr(Schema.String)),
  actor: Schema.String,
  note: Schema.optional(Schema.NullOr(Schema.String))
})

const NewRefund = Schema.Struct({
  id: Schema.String,
  orderId: Schema.String,
  partnerId: Schema.String,
  amountCents: Schema.Number,
  reason: Schema.NullOr(Schema.String)
})

const DueOrders = Schema.Struct({
  partnerId: Schema.String,
  environment: Environment,
  currency: Schema.String,
  cutoff: Schema.DateFromSelf,
  onlyId: Schema.optional(Schema.String)
})

const NewBrokerageOrder = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  credentialId: Schema.String,
  environment: Environment,
  caseId: Schema.String,
  domain: Schema.String,
  feeCents: Schema.Number,
  dealPriceCents: Schema.Number,
  shareBps: Schema.Number,
  currency: Schema.String,
  buyerEmail: Schema.String
})

/** A new order's fields (the commission rate and amount come from the partner row). */
export interface NewOrder {
  readonly id: string
  readonly partnerId: string
  readonly credentialId: string
  readonly environment: PartnerEnvironment
  readonly listingId: string
  readonly domain: string
  readonly status: OrderStatus
  readonly salePriceCents: number
  readonly currency: string
  readonly externalPaymentRef: string
  readonly quoteId: string | null
  readonly buyer: unknown
  readonly returnUrl: string | null
  readonly cancelUrl: string | null
  /** Hosted checkout and referral sales (src/checkout); default partner_collected. */
  readonly paymentModel?: PaymentModel
  readonly checkoutSessionId?: string | null
  readonly referralLinkId?: string | null
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // The partner's commission rate is frozen on the order; the amount is ⌊sale × bps / 10 000⌋
  // (commissionOf in src/domain/Money.ts; ledger verify checks they agree).
  const insertOrderFrom = (o: NewOrder) =>
    sql`
      insert into partner_orders (id, partner_id, credential_id, environment, listing_id, domain, status, sale_price_cents,
        currency, external_payment_ref, quote_id, buyer, return_url, cancel_url, commission_bps, commission_cents,
        payment_model, checkout_session_id, referral_link_id)
      select ${o.id}, ${o.partnerId}, ${o.credentialId}, ${o.environment}, ${o.listingId}, ${o.domain}, ${o.status},
        ${o.salePriceCents}, ${o.currency}, ${o.externalPaymentRef}, ${o.quoteId}, ${JSON.stringify(o.buyer)}::jsonb,
        ${o.returnUrl}, ${o.cancelUrl}, p.commission_bps, ${o.salePriceCents}::bigint * p.commission_bps / 10000,
        ${o.paymentModel ?? "partner_collected"}, ${o.checkoutSessionId ?? null}, ${o.referralLinkId ?? null}
      from partners p where p.id = ${o.partnerId}`

  const insertQuote = SqlSchema.void({
    Request: NewQuote,
    execute: (q) =>
      sql`insert into partner_quotes (id, partner_id, environment, listing_id, domain, price_cents, currency, expires_at)
          values (${q.id}, ${q.partnerId}, ${q.environment}, ${q.listingId}, ${q.domain}, ${q.priceCents}, ${q.currency}, ${q.expiresAt})`
  })
  const openOrderOnListing = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ id: Schema.String, partner_id: Schema.String }),
    execute: (listingId) =>
      sql`
        select id, partner_id from partner_orders
        where listing_id = ${listingId} and status not in ('REFUNDED', 'CANCELLED') limit 1`
  })
  const orderById = SqlSchema.findOne({
    Request: Schema.String,
    Result: OrderRow,
    execute: (id) => sql`select * from partner_orders where id = ${id}`
  })
  const orderByIdForUpdate = SqlSchema.findOne({
    Request: Schema.String,
    Result: OrderRow,
    execute: (id) => sql`select * from partner_orders where id = ${id} for update`
  })
  const updateStatus = SqlSchema.single({
    Request: Schema.Struct({ id: Schema.String, status: Status }),
    Result: OrderRow,
    execute: ({ id, status }) =>
      sql`
        update partner_orders set status = ${status}, updated_at = now(),
          transfer_completed_at = case when ${status} = 'TRANSFER_COMPLETED' then now() else transfer_completed_at end,
          settled_at = case when ${status} = 'SETTLED' then now() else settled_at end,
          refunded_at = case when ${status} in ('REFUNDED', 'CANCELLED') then now() else refunded_at end
        where id = ${id} returning *`
  })
  const addTimeline = SqlSchema.void({
    Request: NewTimeline,
    execute: (t) =>
      sql`insert into partner_order_timeline (order_id, kind, status, from_status, step, event_id, actor, note)
          values (${t.orderId}, ${t.kind}, ${t.status ?? null}, ${t.fromStatus ?? null}, ${t.step ?? null},
                  ${t.eventId ?? null}, ${t.actor}, ${t.note ?? null})`
  })
  const lockListingForOrder = SqlSchema.findOne({
    Request: Schema.Struct({
      environment: Environment,
      domain: Schema.String,
      quoteId: Schema.NullOr(Schema.String)
    }),
    Result: ListingForOrder,
    execute: ({ domain, environment, quoteId }) =>
      sql`select * from partner_order_lock_listing(${environment}, ${domain}, ${quoteId})`
  })
  const timeline = SqlSchema.findAll({
    Request: Schema.String,
    Result: TimelineRow,
    execute: (orderId) =>
      sql`select seq, kind, status, from_status, step, event_id, actor, note, at
          from partner_order_timeline where order_id = ${orderId} order by seq`
  })
  const insertRefund = SqlSchema.void({
    Request: NewRefund,
    execute: (r) =>
      sql`insert into partner_refunds (id, order_id, partner_id, amount_cents, reason)
          values (${r.id}, ${r.orderId}, ${r.partnerId}, ${r.amountCents}, ${r.reason})`
  })
  const settleDue = SqlSchema.findAll({
    Request: DueOrders,
    Result: OrderRow,
    execute: (k) =>
      sql`
        update partner_orders set status = 'SETTLED', settled_at = now(), updated_at = now()
        where id in (
          select id from partner_orders
          where partner_id = ${k.partnerId} and environment = ${k.environment} and currency = ${k.currency}
            and status = 'TRANSFER_COMPLETED' and transfer_completed_at <= ${k.cutoff}
            ${k.onlyId ? sql`and id = ${k.onlyId}` : sql``}
          order by id
          for update skip locked)
        returning *`
  })
  const dueGroups = SqlSchema.findAll({
    Request: Schema.DateFromSelf,
    Result: DueGroup,
    execute: (cutoff) =>
      sql`
        select distinct partner_id, environment, currency from partner_orders
        where status = 'TRANSFER_COMPLETED' and transfer_completed_at <= ${cutoff}
        order by partner_id, environment, currency`
  })
  const list = SqlSchema.findAll({
    Request: PartnerPage,
    Result: OrderRow,
    execute: (f) =>
      sql`
        select * from partner_orders
        where partner_id = ${f.partnerId} and environment = ${f.environment}
          ${f.status ? sql`and status = ${f.status}` : sql``}
          ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}
          ${f.domain ? sql`and domain = ${f.domain}` : sql``}
          ${f.from ? sql`and created_at >= ${f.from}` : sql``}
          ${f.to ? sql`and created_at < ${f.to}` : sql``}
          ${f.beforeId ? sql`and id < ${f.beforeId}` : sql``}
        order by id desc
        limit ${f.limit}`
  })
  const insertBrokerageOrder = SqlSchema.single({
    Request: NewBrokerageOrder,
    Result: OrderRow,
    execute: (o) =>
      sql`
        insert into partner_orders (id, partner_id, credential_id, environment, listing_id, domain, status, sale_price_cents,
          currency, external_payment_ref, buyer, payment_model, commission_bps, commission_cents, transfer_completed_at,
          deal_price_cents)
        values (${o.id}, ${o.partnerId}, ${o.credentialId}, ${o.environment}, ${o.caseId}, ${o.domain}, 'TRANSFER_COMPLETED',
          ${o.feeCents}, ${o.currency}, ${o.caseId}, ${
        JSON.stringify({ email: o.buyerEmail })
      }::jsonb, 'brokerage', ${o.shareBps},
          ${o.feeCents}::bigint * ${o.shareBps} / 10000, now(), ${o.dealPriceCents})
        returning *`
  })
  const listAll = SqlSchema.findAll({
    Request: OperatorPage,
    Result: OrderRow,
    execute: (f) =>
      sql`
        select * from partner_orders
        where true
          ${f.partnerId ? sql`and partner_id = ${f.partnerId}` : sql``}
          ${f.environment ? sql`and environment = ${f.environment}` : sql``}
          ${f.status ? sql`and status = ${f.status}` : sql``}
          ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}
          ${f.domain ? sql`and domain = ${f.domain}` : sql``}
        order by id desc
        limit ${f.limit}`
  })

  return {
    insertQuote: (q: typeof NewQuote.Type) => Effect.orDie(insertQuote(q)),

    /**
     * The new order, the listing held (`hold`: market's `pending` update, src/market) and the
     * quote (if any) marked used, in one statement (data-modifying CTEs all run, in the caller's
     * transaction): one round trip on POST /orders (bench/partner.ts).
     */
    insertOrderHoldingListing: (o: NewOrder, hold: Fragment) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: OrderRow,
        execute: () =>
          sql`
            with held as (${hold}), quoted as (
              update partner_quotes set used_by_order = ${o.id} where ${o.quoteId}::text is not null and id = ${o.quoteId}
            )
            ${insertOrderFrom(o)}
            returning *`
      })(undefined).pipe(Effect.orDie),

    /** An open order (not refunded/cancelled) on the listing. */
    openOrderOnListing: (listingId: string) => Effect.orDie(openOrderOnListing(listingId)),

    orderById: (id: string, options?: { readonly forUpdate?: boolean }) =>
      Effect.orDie(options?.forUpdate ? orderByIdForUpdate(id) : orderById(id)),

    updateStatus: (id: string, status: OrderStatus) => Effect.orDie(updateStatus({ id, status })),

    addTimeline: (t: typeof NewTimeline.Type) => Effect.orDie(addTimeline(t)),

    /** `addTimeline` as a `select` for Outbox.append's `follow` (inserted with the event). */
    timelineAfterEvent:
      (t: { orderId: string; status: string; fromStatus?: string | null; actor: string; note?: string | null }) =>
      (eventId: string) =>
        sql`insert into partner_order_timeline (order_id, kind, status, from_status, event_id, actor, note)
            select ${t.orderId}, 'status', ${t.status}, ${t.fromStatus ?? null}, ${eventId}, ${t.actor}, ${
          t.note ?? null
        }
            from appended where last is null`,

    /**
     * The listing of a new order locked (`for update`) with its hold and, read after the lock so
     * they see what its previous holder committed: an open order on it, and the order's own quote
     * (locked) when it names one. One round trip (the function of migrations 0190/0200; the
     * listing row is market's, only locked here, and its hold is judged by `Market.sales.admit`:
     * bench/partner.ts orders). None when the domain is not listed in the environment.
     */
    lockListingForOrder: (env: PartnerEnvironment, domain: string, quoteId: string | null) =>
      Effect.orDie(lockListingForOrder({ environment: env, domain, quoteId })),

    timeline: (orderId: string) => Effect.orDie(timeline(orderId)),

    insertRefund: (r: typeof NewRefund.Type) => Effect.orDie(insertRefund(r)),

    /**
     * Settlement: moves the due TRANSFER_COMPLETED orders of one partner, environment and currency
     * (or just `onlyId`) to SETTLED, skipping rows another transaction holds. Caller's transaction.
     */
    settleDue: (k: typeof DueOrders.Type) => Effect.orDie(settleDue(k)),

    /** Partner, environment and currency groups holding orders due for settlement. */
    dueGroups: (cutoff: Date) => Effect.orDie(dueGroups(cutoff)),

    /** Same status row for many orders at once (settlement). */
    addStatusTimelineMany: (
      rows: ReadonlyArray<
        { orderId: string; status: string; fromStatus: string; eventId: string | null; actor: string }
      >
    ) =>
      rows.length === 0 ? Effect.void : bulkInsert(
        sql,
        "partner_order_timeline",
        [
          ["order_id", "text"],
          ["kind", "text"],
          ["status", "text"],
          ["from_status", "text"],
          ["event_id", "text"],
          ["actor", "text"]
        ],
        rows.map((r) => ({
          order_id: r.orderId,
          kind: "status",
          status: r.status,
          from_status: r.fromStatus,
          event_id: r.eventId,
          actor: r.actor
        }))
      ).pipe(
        Effect.asVoid,
        Effect.orDie
      ),

    list: (partnerId: string, env: PartnerEnvironment, f: OrderFilters, beforeId: string | null, limit: number) =>
      Effect.orDie(list({ ...f, partnerId, environment: env, beforeId, limit })),

    /**
     * A won brokerage case's commission row (src/partner/brokerage): the service's fee as the sale,
     * the partner's share of it as the commission (payment_model `brokerage`), already
     * TRANSFER_COMPLETED, so the settlement run makes it payable and the payout run pays it.
     * Caller's transaction.
     */
    insertBrokerageOrder: (o: typeof NewBrokerageOrder.Type) => Effect.orDie(insertBrokerageOrder(o)),

    /** Every partner's orders, newest first (operator view). */
    listAll: (
      f: OrderFilters & {
        readonly partnerId?: string | undefined
        readonly environment?: PartnerEnvironment | undefined
      },
      limit: number
    ) => Effect.orDie(listAll({ ...f, limit }))
  }
})

export class OrderRepo extends Context.Tag("app/PartnerOrderRepo")<OrderRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(OrderRepo, make)
}
