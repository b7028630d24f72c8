/**
 * The marketplace's public purchase page as a buyer's browser uses it: open `/buy/{domain}`
 * (holding a referral cookie or not) and pay the hosted page with the test card.
 */
import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { CARDS, csrfOf, payWith, ptOf } from "./CheckoutKit.js"
import { request } from "./http.js"
import { TestServer } from "./TestServer.js"

/**
 * Opens `/buy/{domain}` as a browser holding the referral cookie (if any) and answers the
 * session's `pt`: a 303 to the hosted page, or — when the page renders a form first — that
 * form posted with its CSRF token (the buy page of wip/buypage; once merged, CheckoutKit's
 * `buyThroughPage` does the same).
 */
export const openBuyPage = (domain: string, cookie?: string) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer
    const headers: Record<string, string> = cookie ? { cookie: `mk_ref=${cookie}` } : {}
    let reply = yield* request(`/buy/${domain}`, { headers })
    if (reply.status === 200) {
      // The page's purchase form (method post; the header's search form is a GET).
      const action = /<form method="post" action="([^"]+)"/.exec(reply.text)?.[1] ?? `/buy/${domain}`
      reply = yield* request(action.replace(/&amp;/g, "&"), {
        method: "POST",
        headers: { ...headers, origin: baseUrl, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf: csrfOf(reply.text) }).toString()
      })
    }
    expect(reply.status, reply.text).toBe(303)
    return ptOf(reply.headers.get("location")!)
  })

/** Pays the /buy session of `domain` with the test card; answers its order id and session id. */
export const buyThroughPage = (domain: string, cookie?: string) =>
  Effect.gen(function*() {
    const paid = yield* payWith(yield* openBuyPage(domain, cookie), CARDS.ok)
    expect(paid.status, paid.text).toBe(303)
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ order_id: string; session_id: string }>`
      select o.id as order_id, s.id as session_id from checkout_sessions s join partner_orders o on o.checkout_session_id = s.id
      where s.domain = ${domain} and s.status = 'paid'`.pipe(Effect.orDie)
    return { orderId: row!.order_id, sessionId: row!.session_id }
  })
