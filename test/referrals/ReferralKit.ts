/**
 * Test helpers for referrals: follow a link as a browser would (keeping the `mk_ref` cookie), and
 * record a paid referral sale exactly as the hosted checkout does when an attributed session is
 * paid: the paid `checkout_sessions` row (the payment provider layer's record, which `ledger
 * verify` reconciles with the ledger's cash), the `partner_orders` row (`payment_model:
 * "referral"`, `referral_link_id`) and `Books.recordSale`, in one transaction.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Books } from "../../src/partner/ledger/Books.js"
import { Orders } from "../../src/partner/orders/Orders.js"
import { makeId } from "../../src/platform/Ids.js"
import { type Attribution, REFERRAL_COOKIE, ReferralAttribution } from "../../src/referrals/Attribution.js"
import { request } from "../support/http.js"
import { capturedPayment } from "../support/PaymentKit.js"

export const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"

/** GET /r/{code}; returns the reply and the cookie value it set (if any). */
export const follow = (code: string, options: { readonly ua?: string; readonly ip?: string } = {}) =>
  Effect.map(
    request(`/r/${code}`, {
      headers: { "user-agent": options.ua ?? BROWSER_UA, ...(options.ip ? { "x-forwarded-for": options.ip } : {}) }
    }),
    (reply) => {
      const setCookie = reply.headers.get("set-cookie") ?? ""
      const m = new RegExp(`${REFERRAL_COOKIE}=([^;]*)`).exec(setCookie)
      return { reply, setCookie, cookie: m?.[1] }
    }
  )

/** The service's own attribution layer (the one the buy page uses), from the running server. */
export const resolve = (cookie: string | undefined, now: Date) =>
  Effect.flatMap(ReferralAttribution, (a) => a.resolve(cookie, now)) as unknown as Effect.Effect<
    import("effect").Option.Option<Attribution>
  >

export const checkoutStarted = (attribution: Attribution, sessionId: string, domain: string) =>
  Effect.flatMap(
    ReferralAttribution,
    (a) => a.checkoutStarted(attribution, { sessionId, domain })
  ) as unknown as Effect.Effect<void>

/** A paid referral sale for the attributed partner (the checkout's write path). Returns the order id. */
export const paidReferralSale = (attribution: Attribution, domain: string, saleCents: number) =>
  (Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const books = yield* Books
    const id = makeId("ord")
    return yield* sql.withTransaction(Effect.gen(function*() {
      const session = yield* capturedPayment({
        orderId: id,
        environment: attribution.environment,
        cents: saleCents,
        domain
      })
      const [order] = yield* sql<any>`
        insert into partner_orders (id, partner_id, credential_id, environment, listing_id, domain, status, sale_price_cents, currency,
          external_payment_ref, buyer, payment_model, commission_bps, commission_cents, referral_link_id, checkout_session_id)
        select ${id}, p.id, 'checkout', ${attribution.environment}, ${`lst_${id}`}, ${domain}, 'EXTERNALLY_PAID', ${saleCents}, 'USD',
          ${`pi_sbx_${id}_1_ok`}, '{"email":"buyer@example.org"}'::jsonb, 'referral', p.commission_bps, ${saleCents}::bigint * p.commission_bps / 10000,
          ${attribution.linkId}, ${session}
        from partners p where p.id = ${attribution.partnerId}
        returning *`
      yield* books.recordSale(order)
      return id
    }))
  }).pipe(Effect.provide(Books.Live), Effect.orDie)) as Effect.Effect<string, never, SqlClient.SqlClient>

/** An order lifecycle move through the project's Orders service (refund, transfer…). */
export const moveOrder = (orderId: string, action: "refund" | "start_transfer" | "confirm_delivery") =>
  Effect.flatMap(
    Orders,
    (o) =>
      o.move(orderId, action as any, { actor: "test", ...(action === "refund" ? { refund: { reason: "test" } } : {}) })
  ).pipe(Effect.orDie) as unknown as Effect.Effect<void>
