/**
 * Starting a `/buy/{domain}` purchase as a browser would, whichever way the route opens the
 * session: a GET that answers 303 to the payment page, or a GET that renders the purchase page
 * and a same-origin form POST (with its CSRF token) that answers the 303. Refusals (404/409
 * pages) come back as the reply that carries them. `location` is the payment page, when opened.
 */
import { Effect } from "effect"
import { csrfOf } from "../support/CheckoutKit.js"
import { fetchReply } from "../support/http.js"
import { TestServer } from "../support/TestServer.js"

export const startBuy = (domain: string) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer
    const shown = yield* Effect.promise(() => fetchReply(`${baseUrl}/buy/${domain}`))
    const action = /<form method="post" action="([^"]+)"/.exec(shown.text)?.[1]?.replace(/&amp;/g, "&")
    if (shown.status !== 200 || action === undefined) return shown
    return yield* Effect.promise(() =>
      fetchReply(`${baseUrl}${action}`, {
        method: "POST",
        body: new URLSearchParams({ csrf: csrfOf(shown.text) }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", origin: baseUrl }
      })
    )
  })
