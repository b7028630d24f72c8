/**
 * SQL of one order: its quote, the order written while its listing is held, the listing locked
 * for it, its status, its timeline and its refunds, a brokerage order. A database error is a
 * defect here (`Effect.orDie`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import type { OrderStatus } from "../../domain/OrderState.js"
import type { PartnerEnvironment } from "../Auth.js"
import { partnerTerms } from "../Fragments.js"
import {
  Environment,
  ListingForOrder,
  NewBrokerageOrder,
  type NewOrder,
  NewQuote,
  NewRefund,
  NewTimeline,
  OrderRow,
  Status,
  TimelineRow
} from "./RepoRows.js"

// The partner's commission rate is frozen on the order; the amount is ⌊sale × bps / 10 000⌋
// (commissionOf in src/domain/Money.ts; ledger verify checks they agree).
const insertOrderFromQuery = (sql: SqlClient.SqlClient) => (o: NewOrder) =>
  sql`
      insert into partner_orders (id, partner_id, credential_id, environment, listing_id, domain, status, sale_price_cents,
        currency, external_payment_ref, quote_id, buyer, return_url, cancel_url, commission_bps, commission_cents,
        payment_model, checkout_session_id, referral_link_id)
      select ${o.id}, ${o.partnerId}, ${o.credentialId}, ${o.environment}, ${o.listingId}, ${o.domain}, ${o.status},
        ${o.salePriceCents}, ${o.currency}, ${o.externalPaymentRef}, ${o.quoteId}, ${JSON.stringify(o.buyer)}::jsonb,
        ${o.returnUrl}, ${o.cancelUrl}, p.commission_bps, ${o.salePriceCents}::bigint * p.commission_bps / 10000,
        ${o.paymentModel ?? "partner_collected"}, ${o.checkoutSessionId ?? null}, ${o.referralLinkId ?? null}
      from ${partnerTerms(sql, o.partnerId)}`

const insertQuoteQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: NewQuote,
    execute: (q) =>
      sql`insert into partner_quotes (id, partner_id, environment, listing_id, domain, price_cents, currency, expires_at)
          values (${q.id}, ${q.partnerId}, ${q.environment}, ${q.listingId}, ${q.domain}, ${q.priceCents}, ${q.currency}, ${q.expiresAt})`
  })

const openOrderOnListingQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ id: Schema.String, partner_id: Schema.String }),
    execute: (listingId) =>
      sql`
        select id, partner_id from partner_orders
        where listing_id = ${listingId} and status not in ('REFUNDED', 'CANCELLED') limit 1`
  })

const orderByIdQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.String,
    Result: OrderRow,
    execute: (id) => sql`select * from partner_orders where id = ${id}`
  })

const orderByIdForUpdateQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.String,
    Result: OrderRow,
    execute: (id) => sql`select * from partner_orders where id = ${id} for update`
  })

const updateStatusQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
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

const addTimelineQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: NewTimeline,
    execute: (t) =>
      sql`insert into partner_order_timeline (order_id, kind, status, from_status, step, event_id, actor, note)
          values (${t.orderId}, ${t.kind}, ${t.status ?? null}, ${t.fromStatus ?? null}, ${t.step ?? null},
                  ${t.eventId ?? null}, ${t.actor}, ${t.note ?? null})`
  })

const lockListingForOrderQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.Struct({
      environment: Environment,
      domain: Schema.String,
      quoteId: Schema.NullOr(Schema.String)
    }),
    Result: ListingForOrder,
    execute: ({ domain, environment, quoteId }) =>
      sql`select * from partner_order_lock_listing(${environment}, ${domain}, ${quoteId})`
  })

const timelineQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.String,
    Result: TimelineRow,
    execute: (orderId) =>
      sql`select seq, kind, status, from_status, step, event_id, actor, note, at
          from partner_order_timeline where order_id = ${orderId} order by seq`
  })

const insertRefundQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: NewRefund,
    execute: (r) =>
      sql`insert into partner_refunds (id, order_id, partner_id, amount_cents, reason)
          values (${r.id}, ${r.orderId}, ${r.partnerId}, ${r.amountCents}, ${r.reason})`
  })

const insertBrokerageOrderQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
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

/** One order's operations of the repository. */
export const orderQueries = (sql: SqlClient.SqlClient) => {
  const insertOrderFrom = insertOrderFromQuery(sql)
  const insertQuote = insertQuoteQuery(sql)
  const openOrderOnListing = openOrderOnListingQuery(sql)
  const orderById = orderByIdQuery(sql)
  const orderByIdForUpdate = orderByIdForUpdateQuery(sql)
  const updateStatus = updateStatusQuery(sql)
  const addTimeline = addTimelineQuery(sql)
  const lockListingForOrder = lockListingForOrderQuery(sql)
  const timeline = timelineQuery(sql)
  const insertRefund = insertRefundQuery(sql)
  const insertBrokerageOrder = insertBrokerageOrderQuery(sql)
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
     * A won brokerage case's commission row (src/partner/brokerage): the service's fee as the sale,
     * the partner's share of it as the commission (payment_model `brokerage`), already
     * TRANSFER_COMPLETED, so the settlement run makes it payable and the payout run pays it.
     * Caller's transaction.
     */
    insertBrokerageOrder: (o: typeof NewBrokerageOrder.Type) => Effect.orDie(insertBrokerageOrder(o))
  }
}
