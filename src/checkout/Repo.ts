/**
 * SQL of checkout sessions (the one owner of `checkout_sessions`). Rows are decoded by their
 * schema; a database failure is a defect here, once (`transaction` too), so the service sees only
 * data. Every status change keeps its guard in the statement (`where … status in (…)`): two
 * callers racing on one session change it once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { SESSION_STATUSES } from "../domain/Checkout.js"
import { partnerNameOf } from "../partner/Fragments.js"
import { orderReversed, reversedOrderSessions } from "../partner/orders/Fragments.js"
import { transactionOf } from "../platform/db/SqlTransaction.js"

const Environment = Schema.Literal("live", "sandbox")
const Status = Schema.Literal(...SESSION_STATUSES)
const Kind = Schema.Literal("partner", "marketplace", "cart")

export const SessionRow = Schema.Struct({
  id: Schema.String,
  kind: Kind,
  partner_id: Schema.NullOr(Schema.String),
  credential_id: Schema.NullOr(Schema.String),
  environment: Environment,
  listing_id: Schema.NullOr(Schema.String),
  domain: Schema.NullOr(Schema.String),
  price_cents: Schema.Number,
  currency: Schema.String,
  reference: Schema.NullOr(Schema.String),
  return_url: Schema.NullOr(Schema.String),
  cancel_url: Schema.NullOr(Schema.String),
  buyer_email: Schema.NullOr(Schema.String),
  buyer_name: Schema.NullOr(Schema.String),
  buyer_country: Schema.NullOr(Schema.String),
  referral_partner_id: Schema.NullOr(Schema.String),
  referral_link_id: Schema.NullOr(Schema.String),
  referral_click_id: Schema.NullOr(Schema.String),
  cart_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  /** A cart's lines (jsonb), see CartItem in ./Cart.ts. */
  items: Schema.Unknown,
  status: Status,
  provider: Schema.NullOr(Schema.String),
  payment_ref: Schema.NullOr(Schema.String),
  attempt: Schema.Number,
  card_brand: Schema.NullOr(Schema.String),
  card_last4: Schema.NullOr(Schema.String),
  last_error: Schema.NullOr(Schema.String),
  order_id: Schema.NullOr(Schema.String),
  expires_at: Schema.DateFromSelf,
  processing_since: Schema.NullOr(Schema.DateFromSelf),
  paid_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  /** Joined by `byId`: the partner's display name. */
  partner_name: Schema.optional(Schema.NullOr(Schema.String))
})
export type SessionRow = typeof SessionRow.Type

export const NewSession = Schema.Struct({
  id: Schema.String,
  kind: Kind,
  partnerId: Schema.NullOr(Schema.String),
  credentialId: Schema.NullOr(Schema.String),
  environment: Environment,
  listingId: Schema.NullOr(Schema.String),
  domain: Schema.NullOr(Schema.String),
  priceCents: Schema.Number,
  currency: Schema.String,
  reference: Schema.NullOr(Schema.String),
  returnUrl: Schema.NullOr(Schema.String),
  cancelUrl: Schema.NullOr(Schema.String),
  buyerEmail: Schema.NullOr(Schema.String),
  referral: Schema.NullOr(Schema.Struct({ partnerId: Schema.String, linkId: Schema.String, clickId: Schema.String })),
  cart: Schema.NullOr(Schema.Struct({ cartId: Schema.String, userId: Schema.String, items: Schema.Unknown })),
  expiresAt: Schema.DateFromSelf
})
export type NewSession = typeof NewSession.Type

const StartPayment = Schema.Struct({
  id: Schema.String,
  provider: Schema.String,
  email: Schema.String,
  name: Schema.String,
  country: Schema.String,
  /** The card's brand and last 4 digits when our page took it (null: the provider's page did). */
  brand: Schema.NullOr(Schema.String),
  last4: Schema.NullOr(Schema.String),
  /** When the attempt started (the service's clock): its listing hold is reckoned from it. */
  since: Schema.DateFromSelf
})

/** A payment attempt of a session, named by its provider reference. */
const Attempt = Schema.Struct({ id: Schema.String, ref: Schema.String })
const Id = Schema.Struct({ id: Schema.String })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const insert = SqlSchema.findOne({
    Request: NewSession,
    Result: SessionRow,
    execute: (s) =>
      sql`
        insert into checkout_sessions (id, kind, partner_id, credential_id, environment, listing_id, domain, price_cents, currency,
          reference, return_url, cancel_url, buyer_email, referral_partner_id, referral_link_id, referral_click_id,
          cart_id, user_id, items, expires_at)
        values (${s.id}, ${s.kind}, ${s.partnerId}, ${s.credentialId}, ${s.environment}, ${s.listingId}, ${s.domain}, ${s.priceCents},
          ${s.currency}, ${s.reference}, ${s.returnUrl}, ${s.cancelUrl}, ${s.buyerEmail}, ${
        s.referral?.partnerId ?? null
      },
          ${s.referral?.linkId ?? null}, ${s.referral?.clickId ?? null}, ${s.cart?.cartId ?? null}, ${
        s.cart?.userId ?? null
      },
          ${s.cart ? JSON.stringify(s.cart.items) : null}::jsonb, ${s.expiresAt})
        on conflict (cart_id) do nothing
        returning *`
  })
  const byId = SqlSchema.findOne({
    Request: Schema.String,
    Result: SessionRow,
    execute: (id) =>
      sql`select s.*, ${partnerNameOf(sql, sql`s.partner_id`)} as partner_name from checkout_sessions s
          where s.id = ${id}`
  })
  const lockById = SqlSchema.findOne({
    Request: Schema.String,
    Result: SessionRow,
    execute: (id) => sql`select * from checkout_sessions where id = ${id} for update`
  })
  const byCart = SqlSchema.findOne({
    Request: Schema.String,
    Result: SessionRow,
    execute: (cartId) => sql`select * from checkout_sessions where cart_id = ${cartId}`
  })
  const ofPartner = SqlSchema.findAll({
    Request: Schema.Struct({
      partnerId: Schema.String,
      environment: Environment,
      beforeId: Schema.NullOr(Schema.String),
      limit: Schema.Number
    }),
    Result: SessionRow,
    execute: (p) =>
      sql`select * from checkout_sessions
          where kind = 'partner' and partner_id = ${p.partnerId} and environment = ${p.environment}
            ${p.beforeId === null ? sql`` : sql`and id < ${p.beforeId}`}
          order by id desc
          limit ${p.limit}`
  })
  const payingOnListing = SqlSchema.findOne({
    Request: Schema.Struct({ listingId: Schema.String, exceptId: Schema.String }),
    Result: Id,
    execute: ({ exceptId, listingId }) =>
      sql`select id from checkout_sessions where listing_id = ${listingId} and id <> ${exceptId}
          and status in ('processing', 'requires_action') limit 1`
  })
  const startPayment = SqlSchema.single({
    Request: StartPayment,
    Result: SessionRow,
    execute: (p) =>
      sql`
        update checkout_sessions set status = 'processing', provider = ${p.provider}, attempt = attempt + 1, payment_ref = null,
          buyer_email = ${p.email}, buyer_name = ${p.name}, buyer_country = ${p.country}, card_brand = ${p.brand},
          card_last4 = ${p.last4}, last_error = null, processing_since = ${p.since}, updated_at = now()
        where id = ${p.id} returning *`
  })
  const setPaymentRef = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, attempt: Schema.Number, ref: Schema.String }),
    execute: ({ attempt, id, ref }) =>
      sql`update checkout_sessions set payment_ref = ${ref}, updated_at = now() where id = ${id} and attempt = ${attempt}`
  })
  const setStatus = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, status: Status, lastError: Schema.NullOr(Schema.String) }),
    execute: ({ id, lastError, status }) =>
      sql`update checkout_sessions set status = ${status}, last_error = ${lastError}, updated_at = now(),
            processing_since = case when ${status} in ('processing', 'requires_action') then processing_since else null end
          where id = ${id}`
  })
  const markPaid = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, orderId: Schema.NullOr(Schema.String) }),
    execute: ({ id, orderId }) =>
      sql`update checkout_sessions set status = 'paid', order_id = ${orderId}, paid_at = now(), processing_since = null, last_error = null,
            updated_at = now() where id = ${id}`
  })
  const markRequiresAction = SqlSchema.void({
    Request: Attempt,
    execute: ({ id, ref }) =>
      sql`update checkout_sessions set status = 'requires_action', updated_at = now()
          where id = ${id} and payment_ref = ${ref} and status = 'processing'`
  })
  const releaseAttempt = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, ref: Schema.String, message: Schema.String }),
    execute: ({ id, message, ref }) =>
      sql`update checkout_sessions set status = 'open', last_error = ${message}, processing_since = null, updated_at = now()
          where id = ${id} and payment_ref = ${ref} and status in ('processing', 'requires_action')`
  })
  const releaseInterrupted = SqlSchema.void({
    Request: Schema.String,
    execute: (id) =>
      sql`update checkout_sessions set status = 'open', processing_since = null, last_error = 'the payment was interrupted', updated_at = now()
          where id = ${id} and payment_ref is null and status = 'processing'`
  })
  const stuck = SqlSchema.findAll({
    Request: Schema.DateFromSelf,
    Result: Id,
    execute: (olderThan) =>
      sql`select id from checkout_sessions where status in ('processing', 'requires_action')
          and processing_since <= ${olderThan} order by processing_since limit 100`
  })
  const paidButReversed = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Id,
    execute: () =>
      sql`
        select s.id from checkout_sessions s
        where s.id in (${reversedOrderSessions(sql)}) and s.status = 'paid'
        order by s.id limit 100`
  })
  const recordPartialRefund = SqlSchema.void({
    Request: Schema.Struct({ sessionId: Schema.String, key: Schema.String, amountCents: Schema.Number }),
    execute: (r) =>
      sql`insert into checkout_partial_refunds (session_id, refund_key, amount_cents)
          values (${r.sessionId}, ${r.key}, ${r.amountCents}) on conflict do nothing`
  })
  const markRefunded = SqlSchema.void({
    Request: Schema.String,
    execute: (id) =>
      sql`update checkout_sessions set status = 'refunded', refunded_at = now(), updated_at = now() where id = ${id} and status = 'paid'`
  })
  const unsoldToRefund = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Id,
    execute: () =>
      sql`select id from checkout_sessions where status = 'refunded' and refunded_at is null and payment_ref is not null
          order by id limit 100`
  })
  const markRefundSent = SqlSchema.findOne({
    Request: Schema.String,
    Result: Id,
    execute: (id) =>
      sql`update checkout_sessions set refunded_at = now(), updated_at = now()
          where id = ${id} and status = 'refunded' and refunded_at is null returning id`
  })
  const sessionOfPayment = SqlSchema.findOne({
    Request: Schema.String,
    Result: Id,
    execute: (ref) => sql`select id from checkout_sessions where payment_ref = ${ref} limit 1`
  })

  /** Captured payments (paid or refunded sessions), with whether their order was reversed since. */
  const captured = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({
      id: Schema.String,
      kind: Kind,
      environment: Environment,
      currency: Schema.String,
      price_cents: Schema.Number,
      status: Status,
      order_id: Schema.NullOr(Schema.String),
      order_reversed: Schema.Boolean,
      refund_sent: Schema.Boolean,
      partly_refunded_cents: Schema.Number
    }),
    execute: () =>
      sql`
        select s.id, s.kind, s.environment, s.currency, s.price_cents, s.status, s.order_id,
               coalesce(${orderReversed(sql, sql`s.order_id`)}, false) as order_reversed,
               s.refunded_at is not null as refund_sent,
               coalesce((select sum(r.amount_cents) from checkout_partial_refunds r where r.session_id = s.id), 0)::int
                 as partly_refunded_cents
        from checkout_sessions s
        where s.status in ('paid', 'refunded')
        order by s.id`
  })

  return {
    /** Captured payments, for the ledger's reconciliation (src/checkout/PaymentRecords.ts). */
    captured: Effect.orDie(captured(undefined)),
    /** Runs `effect` in one transaction; a failed BEGIN/COMMIT is a defect, `effect`'s own errors stay. */
    transaction: transactionOf(sql),
    /** None when the cart has a session already (`on conflict (cart_id) do nothing`). */
    insert: (s: NewSession) => Effect.orDie(insert(s)),
    /** The session with its partner's name (for the pages). */
    byId: (id: string) => Effect.orDie(byId(id)),
    /** The session row locked for the rest of the transaction. */
    lockById: (id: string) => Effect.orDie(lockById(id)),
    byCart: (cartId: string) => Effect.orDie(byCart(cartId)),
    /** A partner's own sessions (kind `partner`) in one environment, newest first, before `beforeId`. */
    ofPartner: (
      owner: { readonly partnerId: string; readonly environment: "live" | "sandbox" },
      beforeId: string | null,
      limit: number
    ) => Effect.orDie(ofPartner({ ...owner, beforeId, limit })),
    /** Another session of the listing paying right now (the reservation). */
    payingOnListing: (listingId: string, exceptId: string) =>
      Effect.orDie(Effect.map(payingOnListing({ listingId, exceptId }), Option.isSome)),
    startPayment: (id: string, p: Omit<typeof StartPayment.Type, "id">) => Effect.orDie(startPayment({ id, ...p })),
    setPaymentRef: (id: string, attempt: number, ref: string) => Effect.orDie(setPaymentRef({ id, attempt, ref })),
    setStatus: (id: string, status: SessionRow["status"], lastError: string | null = null) =>
      Effect.orDie(setStatus({ id, status, lastError })),
    markPaid: (id: string, orderId: string | null) => Effect.orDie(markPaid({ id, orderId })),
    /** The attempt `ref` waits for the buyer's confirmation step (only while it is `processing`). */
    markRequiresAction: (id: string, ref: string) => Effect.orDie(markRequiresAction({ id, ref })),
    /** A declined or abandoned attempt gives the reservation back (only if it is still that attempt). */
    releaseAttempt: (id: string, ref: string, message: string) => Effect.orDie(releaseAttempt({ id, ref, message })),
    /** A payment that died before the provider heard of it: nothing was charged. */
    releaseInterrupted: (id: string) => Effect.orDie(releaseInterrupted(id)),
    /** Payments in progress for longer than `olderThan` (reconciliation). */
    stuck: (olderThan: Date) => Effect.orDie(stuck(olderThan)),
    /** Paid sessions whose order was refunded or cancelled since: their money goes back. */
    paidButReversed: Effect.orDie(paidButReversed(undefined)),
    markRefunded: (id: string) => Effect.orDie(markRefunded(id)),
    /** Sessions refused after their payment whose provider refund is not yet confirmed sent. */
    unsoldToRefund: Effect.orDie(unsoldToRefund(undefined)),
    /** Records a refused session's provider refund as sent; false when it already was. */
    markRefundSent: (id: string) => Effect.orDie(Effect.map(markRefundSent(id), Option.isSome)),
    /** Part of a session's payment given back at the provider under `key` (once per key). */
    recordPartialRefund: (sessionId: string, key: string, amountCents: number) =>
      Effect.orDie(recordPartialRefund({ sessionId, key, amountCents })),
    /** Which session a provider payment reference belongs to. */
    sessionOfPayment: (ref: string) => Effect.orDie(Effect.map(sessionOfPayment(ref), Option.map((r) => r.id)))
  }
})

export class CheckoutRepo extends Effect.Service<CheckoutRepo>()("app/CheckoutRepo", { effect: make }) {
  /** Kept for src/checkout/PaymentRecords.ts and test/checkout, which provide it themselves as before. */
  static readonly Live = CheckoutRepo.Default
}
