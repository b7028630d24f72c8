/** SQL of checkout sessions (the one owner of `checkout_sessions`). */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { SessionStatus } from "../domain/Checkout.js"
import type { PartnerEnvironment } from "../partner/Auth.js"

export interface SessionRow {
  readonly id: string
  readonly kind: "partner" | "marketplace" | "cart"
  readonly partner_id: string | null
  readonly credential_id: string | null
  readonly environment: PartnerEnvironment
  readonly listing_id: string | null
  readonly domain: string | null
  readonly price_cents: number
  readonly currency: string
  readonly reference: string | null
  readonly return_url: string | null
  readonly cancel_url: string | null
  readonly buyer_email: string | null
  readonly buyer_name: string | null
  readonly buyer_country: string | null
  readonly referral_partner_id: string | null
  readonly referral_link_id: string | null
  readonly referral_click_id: string | null
  readonly cart_id: string | null
  readonly user_id: string | null
  readonly items: unknown
  readonly status: SessionStatus
  readonly provider: string | null
  readonly payment_ref: string | null
  readonly attempt: number
  readonly card_brand: string | null
  readonly card_last4: string | null
  readonly last_error: string | null
  readonly order_id: string | null
  readonly expires_at: Date
  readonly processing_since: Date | null
  readonly paid_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
  /** Joined: the partner's display name. */
  readonly partner_name?: string | null
}

export interface NewSession {
  readonly id: string
  readonly kind: SessionRow["kind"]
  readonly partnerId: string | null
  readonly credentialId: string | null
  readonly environment: PartnerEnvironment
  readonly listingId: string | null
  readonly domain: string | null
  readonly priceCents: number
  readonly currency: string
  readonly reference: string | null
  readonly returnUrl: string | null
  readonly cancelUrl: string | null
  readonly buyerEmail: string | null
  readonly referral: { readonly partnerId: string; readonly linkId: string; readonly clickId: string } | null
  readonly cart: { readonly cartId: string; readonly userId: string; readonly items: unknown } | null
  readonly expiresAt: Date
}

const normalise = (r: SessionRow): SessionRow => ({ ...r, price_cents: Number(r.price_cents), attempt: Number(r.attempt) })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const one = (rows: ReadonlyArray<SessionRow>) => Option.map(Option.fromNullable(rows[0]), normalise)

  return {
    insert: (s: NewSession) =>
      sql<SessionRow>`
        insert into checkout_sessions (id, kind, partner_id, credential_id, environment, listing_id, domain, price_cents, currency,
          reference, return_url, cancel_url, buyer_email, referral_partner_id, referral_link_id, referral_click_id,
          cart_id, user_id, items, expires_at)
        values (${s.id}, ${s.kind}, ${s.partnerId}, ${s.credentialId}, ${s.environment}, ${s.listingId}, ${s.domain}, ${s.priceCents},
          ${s.currency}, ${s.reference}, ${s.returnUrl}, ${s.cancelUrl}, ${s.buyerEmail}, ${s.referral?.partnerId ?? null},
          ${s.referral?.linkId ?? null}, ${s.referral?.clickId ?? null}, ${s.cart?.cartId ?? null}, ${s.cart?.userId ?? null},
          ${s.cart ? JSON.stringify(s.cart.items) : null}::jsonb, ${s.expiresAt})
        on conflict (cart_id) do nothing
        returning *`.pipe(Effect.map(one), Effect.orDie),

    byId: (id: string, options?: { readonly forUpdate?: boolean }) =>
      (options?.forUpdate
        ? sql<SessionRow>`select * from checkout_sessions where id = ${id} for update`
        : sql<SessionRow>`select s.*, p.name as partner_name from checkout_sessions s left join partners p on p.id = s.partner_id
                          where s.id = ${id}`).pipe(Effect.map(one), Effect.orDie),

    byCart: (cartId: string) => sql<SessionRow>`select * from checkout_sessions where cart_id = ${cartId}`.pipe(Effect.map(one), Effect.orDie),

    /** Another session of the listing paying right now (the reservation). */
    payingOnListing: (listingId: string, exceptId: string) =>
      sql<{ id: string }>`select id from checkout_sessions where listing_id = ${listingId} and id <> ${exceptId}
                          and status in ('processing', 'requires_action') limit 1`.pipe(Effect.map((r) => r.length > 0), Effect.orDie),

    startPayment: (id: string, p: { provider: string; email: string; name: string; country: string; brand: string; last4: string }) =>
      sql<SessionRow>`
        update checkout_sessions set status = 'processing', provider = ${p.provider}, attempt = attempt + 1, payment_ref = null,
          buyer_email = ${p.email}, buyer_name = ${p.name}, buyer_country = ${p.country}, card_brand = ${p.brand},
          card_last4 = ${p.last4}, last_error = null, processing_since = now(), updated_at = now()
        where id = ${id} returning *`.pipe(Effect.map((rows) => normalise(rows[0]!)), Effect.orDie),

    setPaymentRef: (id: string, attempt: number, ref: string) =>
      sql`update checkout_sessions set payment_ref = ${ref}, updated_at = now() where id = ${id} and attempt = ${attempt}`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),

    setStatus: (id: string, status: SessionStatus, lastError: string | null = null) =>
      sql`update checkout_sessions set status = ${status}, last_error = ${lastError}, updated_at = now(),
            processing_since = case when ${status} in ('processing', 'requires_action') then processing_since else null end
          where id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

    markPaid: (id: string, orderId: string | null) =>
      sql`update checkout_sessions set status = 'paid', order_id = ${orderId}, paid_at = now(), processing_since = null, last_error = null,
            updated_at = now() where id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

    /** Payments in progress for longer than `olderThan` (reconciliation). */
    stuck: (olderThan: Date) =>
      sql<{ id: string }>`select id from checkout_sessions where status in ('processing', 'requires_action')
                          and processing_since <= ${olderThan} order by processing_since limit 100`.pipe(Effect.orDie),

    partnerName: (partnerId: string) =>
      sql<{ name: string }>`select name from partners where id = ${partnerId}`.pipe(Effect.map((r) => r[0]?.name ?? null), Effect.orDie)
  }
})

export class CheckoutRepo extends Context.Tag("app/CheckoutRepo")<CheckoutRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(CheckoutRepo, make)
}
