/** SQL for partner orders, their timeline, refunds, and the listing rows they hold. */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { PaymentModel } from "../../domain/Ledger.js"
import type { OrderStatus } from "../../domain/OrderState.js"
import { bulkInsert } from "../../platform/BulkInsert.js"
import type { PartnerEnvironment } from "../Auth.js"

export interface OrderRow {
  readonly id: string
  readonly partner_id: string
  readonly credential_id: string
  readonly environment: PartnerEnvironment
  readonly listing_id: string
  readonly domain: string
  readonly status: OrderStatus
  readonly sale_price_cents: number
  readonly currency: string
  readonly external_payment_ref: string
  readonly quote_id: string | null
  readonly buyer: { email: string; name?: string; country?: string }
  readonly return_url: string | null
  readonly cancel_url: string | null
  readonly created_at: Date
  readonly updated_at: Date
  readonly transfer_completed_at: Date | null
  readonly settled_at: Date | null
  readonly refunded_at: Date | null
  /** Who collected the buyer's money (src/domain/Ledger.ts); partner orders: partner_collected. */
  readonly payment_model: PaymentModel
  /** The partner's commission rate when the order was created, frozen; and its amount. */
  readonly commission_bps: number
  readonly commission_cents: number
}

export interface TimelineRow {
  readonly seq: number
  readonly kind: "status" | "transfer_step"
  readonly status: string | null
  readonly from_status: string | null
  readonly step: string | null
  readonly event_id: string | null
  readonly actor: string
  readonly note: string | null
  readonly at: Date
}

export interface ListingForSale {
  readonly id: string
  readonly domain: string
  readonly bin_price_cents: number | null
  readonly currency: string
  readonly status: string
  readonly locked: boolean
}

export interface OrderFilters {
  readonly status?: OrderStatus | undefined
  readonly domain?: string | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}

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

  return {
    /** Locks the listing row for the rest of the transaction. */
    lockListing: (env: PartnerEnvironment, domain: string) =>
      sql<ListingForSale>`select id, domain, bin_price_cents, currency, status, locked from listings
                          where environment = ${env} and domain = ${domain} for update`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),

    setListingStatus: (listingId: string, status: "active" | "pending" | "sold") =>
      sql`update listings set status = ${status}, updated_at = now() where id = ${listingId}`.pipe(Effect.asVoid),

    /** A live quote of another partner on the domain (the reservation). */
    otherPartnersLiveQuote: (env: PartnerEnvironment, domain: string, partnerId: string) =>
      sql<{ id: string; expires_at: Date }>`
        select id, expires_at from partner_quotes
        where environment = ${env} and domain = ${domain} and partner_id <> ${partnerId}
          and expires_at > now() and used_by_order is null
        limit 1`.pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),

    insertQuote: (q: {
      id: string
      partnerId: string
      environment: PartnerEnvironment
      listingId: string
      domain: string
      priceCents: number
      currency: string
      expiresAt: Date
    }) =>
      sql`insert into partner_quotes (id, partner_id, environment, listing_id, domain, price_cents, currency, expires_at)
          values (${q.id}, ${q.partnerId}, ${q.environment}, ${q.listingId}, ${q.domain}, ${q.priceCents}, ${q.currency}, ${q.expiresAt})`.pipe(
        Effect.asVoid
      ),

    quoteById: (id: string) =>
      sql<{ id: string; partner_id: string; used_by_order: string | null; expires_at: Date }>`
        select id, partner_id, used_by_order, expires_at from partner_quotes where id = ${id} for update`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),

    useQuote: (quoteId: string, orderId: string) =>
      sql`update partner_quotes set used_by_order = ${orderId} where id = ${quoteId}`.pipe(Effect.asVoid),

    /**
     * The new order, the listing marked `pending` and the quote (if any) marked used, in one
     * statement (data-modifying CTEs all run, in the caller's transaction).
     */
    insertOrderHoldingListing: (o: NewOrder) =>
      sql<OrderRow>`
        with held as (
          update listings set status = 'pending', updated_at = now() where id = ${o.listingId}
        ), quoted as (
          update partner_quotes set used_by_order = ${o.id} where ${o.quoteId}::text is not null and id = ${o.quoteId}
        )
        ${insertOrderFrom(o)}
        returning *`.pipe(Effect.map((rows) => rows[0])),

    /** An open order (not refunded/cancelled) on the listing. */
    openOrderOnListing: (listingId: string) =>
      sql<{ id: string; partner_id: string }>`
        select id, partner_id from partner_orders
        where listing_id = ${listingId} and status not in ('REFUNDED', 'CANCELLED') limit 1`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),

    orderById: (id: string, options?: { readonly forUpdate?: boolean }) =>
      (options?.forUpdate
        ? sql<OrderRow>`select * from partner_orders where id = ${id} for update`
        : sql<OrderRow>`select * from partner_orders where id = ${id}`).pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),

    updateStatus: (id: string, status: OrderStatus) =>
      sql<OrderRow>`
        update partner_orders set status = ${status}, updated_at = now(),
          transfer_completed_at = case when ${status} = 'TRANSFER_COMPLETED' then now() else transfer_completed_at end,
          settled_at = case when ${status} = 'SETTLED' then now() else settled_at end,
          refunded_at = case when ${status} in ('REFUNDED', 'CANCELLED') then now() else refunded_at end
        where id = ${id} returning *`.pipe(Effect.map((rows) => rows[0])),

    addTimeline: (t: {
      orderId: string
      kind: "status" | "transfer_step"
      status?: string | null
      fromStatus?: string | null
      step?: string | null
      eventId?: string | null
      actor: string
      note?: string | null
    }) =>
      sql`insert into partner_order_timeline (order_id, kind, status, from_status, step, event_id, actor, note)
          values (${t.orderId}, ${t.kind}, ${t.status ?? null}, ${t.fromStatus ?? null}, ${t.step ?? null},
                  ${t.eventId ?? null}, ${t.actor}, ${t.note ?? null})`.pipe(Effect.asVoid),

    /** `addTimeline` as a `select` for Outbox.append's `follow` (inserted with the event). */
    timelineAfterEvent: (t: { orderId: string; status: string; fromStatus?: string | null; actor: string; note?: string | null }) =>
      (eventId: string) =>
        sql`insert into partner_order_timeline (order_id, kind, status, from_status, event_id, actor, note)
            select ${t.orderId}, 'status', ${t.status}, ${t.fromStatus ?? null}, ${eventId}, ${t.actor}, ${t.note ?? null}
            from appended where last is null`,

    /** After the listing lock: an open order on the listing, and another partner's live quote on the domain. */
    orderBlockers: (listingId: string, env: PartnerEnvironment, domain: string, partnerId: string) =>
      sql<{ open_order: string | null; other_quote_expires: Date | null }>`
        select
          (select id from partner_orders
            where listing_id = ${listingId} and status not in ('REFUNDED', 'CANCELLED') limit 1) as open_order,
          (select expires_at from partner_quotes
            where environment = ${env} and domain = ${domain} and partner_id <> ${partnerId}
              and expires_at > now() and used_by_order is null
            limit 1) as other_quote_expires`.pipe(Effect.map((rows) => rows[0]!)),

    timeline: (orderId: string) =>
      sql<TimelineRow>`select seq, kind, status, from_status, step, event_id, actor, note, at
                       from partner_order_timeline where order_id = ${orderId} order by seq`,

    insertRefund: (r: { id: string; orderId: string; partnerId: string; amountCents: number; reason: string | null }) =>
      sql`insert into partner_refunds (id, order_id, partner_id, amount_cents, reason)
          values (${r.id}, ${r.orderId}, ${r.partnerId}, ${r.amountCents}, ${r.reason})`.pipe(Effect.asVoid),

    /**
     * Settlement: moves the due TRANSFER_COMPLETED orders of one partner, environment and currency
     * (or just `onlyId`) to SETTLED, skipping rows another transaction holds. Caller's transaction.
     */
    settleDue: (k: { partnerId: string; environment: PartnerEnvironment; currency: string; cutoff: Date; onlyId?: string }) =>
      sql<OrderRow>`
        update partner_orders set status = 'SETTLED', settled_at = now(), updated_at = now()
        where id in (
          select id from partner_orders
          where partner_id = ${k.partnerId} and environment = ${k.environment} and currency = ${k.currency}
            and status = 'TRANSFER_COMPLETED' and transfer_completed_at <= ${k.cutoff}
            ${k.onlyId ? sql`and id = ${k.onlyId}` : sql``}
          order by id
          for update skip locked)
        returning *`,

    /** Partner, environment and currency groups holding orders due for settlement. */
    dueGroups: (cutoff: Date) =>
      sql<{ partner_id: string; environment: PartnerEnvironment; currency: string }>`
        select distinct partner_id, environment, currency from partner_orders
        where status = 'TRANSFER_COMPLETED' and transfer_completed_at <= ${cutoff}
        order by partner_id, environment, currency`,

    /** Same status row for many orders at once (settlement). */
    addStatusTimelineMany: (rows: ReadonlyArray<{ orderId: string; status: string; fromStatus: string; eventId: string | null; actor: string }>) =>
      rows.length === 0 ? Effect.void : bulkInsert(sql, "partner_order_timeline", [
        ["order_id", "text"],
        ["kind", "text"],
        ["status", "text"],
        ["from_status", "text"],
        ["event_id", "text"],
        ["actor", "text"]
      ], rows.map((r) => ({ order_id: r.orderId, kind: "status", status: r.status, from_status: r.fromStatus, event_id: r.eventId, actor: r.actor }))).pipe(Effect.asVoid),

    list: (partnerId: string, env: PartnerEnvironment, f: OrderFilters, beforeId: string | null, limit: number) =>
      sql<OrderRow>`
        select * from partner_orders
        where partner_id = ${partnerId} and environment = ${env}
          ${f.status ? sql`and status = ${f.status}` : sql``}
          ${f.domain ? sql`and domain = ${f.domain}` : sql``}
          ${f.from ? sql`and created_at >= ${f.from}` : sql``}
          ${f.to ? sql`and created_at < ${f.to}` : sql``}
          ${beforeId ? sql`and id < ${beforeId}` : sql``}
        order by id desc
        limit ${limit}`,

    /**
     * A won brokerage case's commission row (src/partner/brokerage): the service's fee as the sale,
     * the partner's share of it as the commission (payment_model `brokerage`), already
     * TRANSFER_COMPLETED, so the settlement run makes it payable and the payout run pays it.
     * Caller's transaction.
     */
    insertBrokerageOrder: (o: {
      id: string
      partnerId: string
      credentialId: string
      environment: PartnerEnvironment
      caseId: string
      domain: string
      feeCents: number
      shareBps: number
      currency: string
      buyerEmail: string
    }) =>
      sql<OrderRow>`
        insert into partner_orders (id, partner_id, credential_id, environment, listing_id, domain, status, sale_price_cents,
          currency, external_payment_ref, buyer, payment_model, commission_bps, commission_cents, transfer_completed_at)
        values (${o.id}, ${o.partnerId}, ${o.credentialId}, ${o.environment}, ${o.caseId}, ${o.domain}, 'TRANSFER_COMPLETED',
          ${o.feeCents}, ${o.currency}, ${o.caseId}, ${JSON.stringify({ email: o.buyerEmail })}::jsonb, 'brokerage', ${o.shareBps},
          ${o.feeCents}::bigint * ${o.shareBps} / 10000, now())
        returning *`.pipe(Effect.map((rows) => rows[0]!)),

    /** Every partner's orders, newest first (operator view). */
    listAll: (f: OrderFilters & { readonly partnerId?: string | undefined; readonly environment?: PartnerEnvironment | undefined }, limit: number) =>
      sql<OrderRow>`
        select * from partner_orders
        where true
          ${f.partnerId ? sql`and partner_id = ${f.partnerId}` : sql``}
          ${f.environment ? sql`and environment = ${f.environment}` : sql``}
          ${f.status ? sql`and status = ${f.status}` : sql``}
          ${f.domain ? sql`and domain = ${f.domain}` : sql``}
        order by id desc
        limit ${limit}`
  }
})

export class OrderRepo extends Context.Tag("app/PartnerOrderRepo")<OrderRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(OrderRepo, make)
}
