/**
 * Test helpers for the hosted checkout: open a session with a signed call, read the page's form
 * (its CSRF token), and post the form as a browser on the page would (Origin = the service).
 */
import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { fetchReply, type Reply } from "./http.js"
import { signed } from "./PartnerKit.js"
import { TestServer } from "./TestServer.js"

export const openSession = (cred: IssuedCredential, body: Record<string, unknown>, headers?: Record<string, string>) =>
  signed(cred, "POST", "/api/partner/v1/checkout-session", { body, ...(headers ? { headers } : {}) })

/** The `pt` of a checkout URL or path. */
export const ptOf = (url: string) => new URL(url, "http://x").searchParams.get("pt")!

export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""

export const page = (path: string, baseUrl?: string) =>
  Effect.flatMap(
    baseUrl ? Effect.succeed(baseUrl) : Effect.map(TestServer, (s) => s.baseUrl),
    (b) => Effect.promise(() => fetchReply(`${b}${path}`))
  )

export const CARDS = {
  ok: "4242 4242 4242 4242",
  declined: "4000 0000 0000 0002",
  action: "4000 0000 0000 3220"
} as const

/** Posts the payment form of the session `pt` (reading its CSRF token from the page first). */
export const payWith = (
  pt: string,
  card: string,
  options: { readonly baseUrl?: string; readonly fields?: Record<string, string>; readonly origin?: string } = {}
) =>
  Effect.gen(function*() {
    const baseUrl = options.baseUrl ?? (yield* TestServer).baseUrl
    const pageReply = yield* Effect.promise(() => fetchReply(`${baseUrl}/checkout?pt=${encodeURIComponent(pt)}`))
    const form = new URLSearchParams({
      csrf: csrfOf(pageReply.text),
      email: "buyer@example.org",
      name: "Ada Buyer",
      country: "NL",
      card_number: card,
      card_exp: "12/34",
      card_cvc: "123",
      ...options.fields
    })
    return yield* Effect.promise(() =>
      fetchReply(`${baseUrl}/checkout/pay?pt=${encodeURIComponent(pt)}`, {
        method: "POST",
        body: form.toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", origin: options.origin ?? baseUrl }
      })
    )
  })

export const postForm = (path: string, fields: Record<string, string>, baseUrl: string, origin = baseUrl) =>
  Effect.promise(() =>
    fetchReply(`${baseUrl}${path}`, {
      method: "POST",
      body: new URLSearchParams(fields).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", origin }
    })
  )

export const ordersOfSession = (sessionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<
        {
          id: string
          status: string
          payment_model: string
          partner_id: string
          referral_link_id: string | null
          sale_price_cents: string
          commission_cents: string
        }
      >`
      select id, status, payment_model, partner_id, referral_link_id, sale_price_cents, commission_cents from partner_orders where checkout_session_id = ${sessionId}`
  ).pipe(Effect.orDie)

/** The buy page's form: its action (the POST that opens the session) and CSRF token. */
export const buyFormOf = (html: string) => ({
  action: /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? "",
  csrf: csrfOf(html)
})

/** The buy page's form posted as the page would (Origin = the service), with the caller's headers. */
const postBuyForm = (baseUrl: string, path: string, shown: Reply, headers: Record<string, string>) => {
  const form = buyFormOf(shown.text)
  return Effect.promise(() =>
    fetchReply(`${baseUrl}${form.action || path}`, {
      method: "POST",
      body: new URLSearchParams({ csrf: form.csrf }).toString(),
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded", origin: baseUrl }
    })
  )
}

/**
 * A browser on the public buy page: GET `path` (e.g. `/buy/x.com` or `/buy/x.com?env=sandbox`),
 * then post its form as the page would (Origin = the service), with the `mk_ref` cookie and a
 * client IP (`X-Forwarded-For`, for servers run with TRUST_PROXY) when given. Answers both replies;
 * the POST's `location` is the payment page of the session it opened.
 */
export const buyThroughPage = (
  path: string,
  options: { readonly cookie?: string | undefined; readonly ip?: string; readonly baseUrl?: string } = {}
) =>
  Effect.gen(function*() {
    const baseUrl = options.baseUrl ?? (yield* TestServer).baseUrl
    const headers: Record<string, string> = {
      ...(options.cookie ? { cookie: `mk_ref=${options.cookie}` } : {}),
      ...(options.ip ? { "x-forwarded-for": options.ip } : {})
    }
    const shown = yield* Effect.promise(() => fetchReply(`${baseUrl}${path}`, { headers }))
    const started = yield* postBuyForm(baseUrl, path, shown, headers)
    return { shown, started, location: started.headers.get("location") }
  })

/**
 * A purchase started as a buyer would: the page shown, then its form posted; a refusal shown by
 * the page itself (404/409: no purchase form) is the answer, and nothing is posted.
 */
export const startBuy = (domain: string) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer
    const path = `/buy/${domain}`
    const shown = yield* Effect.promise(() => fetchReply(`${baseUrl}${path}`))
    if (shown.status !== 200 || buyFormOf(shown.text).action === "") return shown
    return yield* postBuyForm(baseUrl, path, shown, {})
  })

/**
 * Buys `domain` on the buy page (holding the referral cookie, if any) and pays with the test card;
 * answers the order and its session.
 */
export const buyAndPay = (domain: string, cookie?: string) =>
  Effect.gen(function*() {
    const { started } = yield* buyThroughPage(`/buy/${domain}`, { cookie })
    expect(started.status, started.text).toBe(303)
    const paid = yield* payWith(ptOf(started.headers.get("location")!), CARDS.ok)
    expect(paid.status, paid.text).toBe(303)
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ order_id: string; session_id: string }>`
      select o.id as order_id, s.id as session_id from checkout_sessions s join partner_orders o on o.checkout_session_id = s.id
      where s.domain = ${domain} and s.status = 'paid'`.pipe(Effect.orDie)
    return { orderId: row!.order_id, sessionId: row!.session_id }
  })
