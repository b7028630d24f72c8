/**
 * The public buy page (`/buy/{domain}`, issue 29 item 8): GET renders the purchase page and
 * writes nothing (no session, no "checkout started", however often a crawler or a link preview
 * fetches it); the page's form POST (same-origin, with the page's CSRF token) opens the session
 * and goes on to the payment page; both are rate limited per IP; and one visitor's repeated
 * starts of a domain count once in the affiliate's funnel.
 *
 * The server trusts X-Forwarded-For so that each test is its own client IP (own rate-limit bucket).
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BROWSER_UA, follow } from "../referrals/ReferralKit.js"
import { apiClient } from "../support/ApiClient.js"
import { buyFormOf, buyThroughPage, CARDS, ordersOfSession, payWith, ptOf } from "../support/CheckoutKit.js"
import { fetchReply } from "../support/http.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const count = (table: "checkout_sessions" | "referral_checkouts", domain: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: string }>`select count(*) as n from ${sql(table)} where domain = ${domain}`
  ).pipe(
    Effect.map((rows) => Number(rows[0]!.n)),
    Effect.orDie
  )

/** An affiliate's live domain link to `domain`, clicked once: its partner and the `mk_ref` cookie. */
const clickedLink = (domain: string, ip: string) =>
  Effect.gen(function*() {
    const aff = yield* createPartner({ environment: "live", scopes: ["refer", "report"], affiliate: true })
    const client = yield* apiClient({ partner: aff })
    const link = yield* client.partnerReferrals.createLink({ payload: { kind: "domain", domain } })
    const click = yield* follow(link.code, { ip })
    expect(click.cookie).toBeDefined()
    return { aff, client, link, cookie: click.cookie! }
  })

const send = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  Effect.flatMap(TestServer.TestServer, (s) => Effect.promise(() => fetchReply(`${s.baseUrl}${path}`, init)))

layer(
  TestServer.layer({
    TRUST_PROXY: "true",
    REFERRAL_FLUSH_INTERVAL: "50 millis",
    RATE_LIMITS: JSON.stringify({ buy_page: 12, buy_start: 6 })
  }),
  { timeout: 120_000 }
)("the buy page", (it) => {
  it.effect("10 GETs with a referral cookie: 10 pages, 0 sessions, 0 checkouts started", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "look-only.com", environment: "live", bin: 50_000 }])
      const { client, cookie } = yield* clickedLink("look-only.com", "198.51.100.1")
      for (let i = 0; i < 10; i++) {
        const shown = yield* send("/buy/look-only.com", {
          headers: { cookie: `mk_ref=${cookie}`, "x-forwarded-for": "198.51.100.1", "user-agent": BROWSER_UA }
        })
        expect(shown.status, shown.text).toBe(200)
        expect(shown.headers.get("content-type")).toMatch(/^text\/html/)
        expect(shown.text).toContain("Buy look-only.com")
        expect(shown.text).toContain("$500.00")
        expect(buyFormOf(shown.text)).toMatchObject({ action: "/buy/look-only.com" })
        expect(buyFormOf(shown.text).csrf).not.toBe("")
      }
      expect(yield* count("checkout_sessions", "look-only.com")).toBe(0)
      expect(yield* count("referral_checkouts", "look-only.com")).toBe(0)
      expect((yield* client.partnerReferrals.analytics({ urlParams: {} })).checkouts_started).toBe(0)
      // Unlisted, malformed: the same 404 page as before, still nothing written.
      const missing = yield* send("/buy/nothing-listed.com", { headers: { "x-forwarded-for": "198.51.100.1" } })
      expect(missing.status).toBe(404)
      expect(missing.text).toContain("not listed")
    }))

  it.effect("POST refused without the page's CSRF token or from another site; with both it opens the session", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "csrf-buy.com", environment: "live", bin: 70_000 }])
      const { baseUrl } = yield* TestServer.TestServer
      const ip = "198.51.100.2"
      const form = (fields: Record<string, string>, origin: string) =>
        send("/buy/csrf-buy.com", {
          method: "POST",
          body: new URLSearchParams(fields).toString(),
          headers: { "content-type": "application/x-www-form-urlencoded", origin, "x-forwarded-for": ip }
        })
      const noToken = yield* form({}, baseUrl)
      expect(noToken.status).toBe(403)
      const forged = yield* form({ csrf: "AAAA.BBBB" }, baseUrl)
      expect(forged.status).toBe(403)
      const shown = yield* send("/buy/csrf-buy.com", { headers: { "x-forwarded-for": ip } })
      const { csrf } = buyFormOf(shown.text)
      const crossSite = yield* form({ csrf }, "https://evil.example")
      expect(crossSite.status).toBe(403)
      // Another domain's token is not this domain's.
      yield* seedListings([{ domain: "other-buy.com", environment: "live" }])
      const other = buyFormOf((yield* send("/buy/other-buy.com", { headers: { "x-forwarded-for": ip } })).text).csrf
      expect((yield* form({ csrf: other }, baseUrl)).status).toBe(403)
      expect(yield* count("checkout_sessions", "csrf-buy.com")).toBe(0)

      const ok = yield* form({ csrf }, baseUrl)
      expect(ok.status, ok.text).toBe(303)
      expect(ok.headers.get("location")).toMatch(/^\/checkout\?pt=/)
      expect(yield* count("checkout_sessions", "csrf-buy.com")).toBe(1)

      // A live sale paid through the sandbox payment provider: the payment page says no real money
      // moves and names the test cards, so a person trying the shop knows what to type.
      const payment = yield* send(ok.headers.get("location")!, { headers: { "x-forwarded-for": ip } })
      expect(payment.status).toBe(200)
      expect(payment.text).toContain(`name="card_number"`)
      expect(payment.text).toMatch(
        /data-testid="test-cards">Test payments: this shop runs the sandbox payment provider, so no real money moves\. Test cards: 4242 4242 4242 4242 pays/
      )
    }))

  it.effect("one visitor's repeated starts of a domain count once in the funnel; another visitor counts", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "twice-started.com", environment: "live", bin: 120_000 }])
      const ip = "198.51.100.3"
      const { aff, client, cookie, link } = yield* clickedLink("twice-started.com", ip)
      const first = yield* buyThroughPage("/buy/twice-started.com", { cookie, ip })
      const second = yield* buyThroughPage("/buy/twice-started.com", { cookie, ip })
      expect(first.started.status).toBe(303)
      expect(second.started.status).toBe(303)
      // The same visitor clicks the link again (a new click, the same browser) and starts again.
      const again = yield* send(`/r/${link.code}`, {
        headers: { cookie: `mk_ref=${cookie}`, "user-agent": BROWSER_UA, "x-forwarded-for": ip }
      })
      const reclicked = /mk_ref=([^;]*)/.exec(again.headers.get("set-cookie") ?? "")?.[1]
      expect(reclicked).toBeDefined()
      expect((yield* buyThroughPage("/buy/twice-started.com", { cookie: reclicked!, ip })).started.status).toBe(303)
      expect((yield* client.partnerReferrals.analytics({ urlParams: {} })).checkouts_started).toBe(1)
      expect(yield* count("referral_checkouts", "twice-started.com")).toBe(1)

      // Another browser (its own first click) is another visitor.
      const otherClick = yield* follow(link.code, { ip: "198.51.100.33" })
      const other = yield* buyThroughPage("/buy/twice-started.com", { cookie: otherClick.cookie!, ip: "198.51.100.33" })
      expect(other.started.status).toBe(303)
      expect((yield* client.partnerReferrals.analytics({ urlParams: {} })).checkouts_started).toBe(2)

      // Whichever session the visitor pays is the affiliate's sale.
      const paid = yield* payWith(ptOf(second.location!), CARDS.ok)
      expect(paid.status, paid.text).toBe(303)
      const sql = yield* SqlClient.SqlClient
      const [session] = yield* sql<{ id: string }>`
        select id from checkout_sessions where domain = 'twice-started.com' and status = 'paid'`.pipe(Effect.orDie)
      const [order] = yield* ordersOfSession(session!.id)
      expect(order).toMatchObject({ payment_model: "referral", partner_id: aff.partner_id, referral_link_id: link.id })
    }))

  it.effect("GET and POST are rate limited per IP: RateLimit-* headers, then 429 with Retry-After", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "limited-buy.com", environment: "live" }])
      // Windows are fixed (per minute): start early in one, so the counts below share it.
      const probe = yield* send("/buy/limited-buy.com", { headers: { "x-forwarded-for": "198.51.100.40" } })
      const left = Number(probe.headers.get("ratelimit-reset"))
      if (left < 20) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, (left + 1) * 1000)))
      const ip = "198.51.100.4"
      let last = yield* send("/buy/limited-buy.com", { headers: { "x-forwarded-for": ip } })
      expect(last.status).toBe(200)
      expect(last.headers.get("ratelimit-limit")).toBe("12")
      expect(last.headers.get("ratelimit-remaining")).toBe("11")
      expect(last.headers.get("ratelimit-policy")).toBe("12;w=60")
      expect(Number(last.headers.get("ratelimit-reset"))).toBeGreaterThan(0)
      for (let i = 1; i < 12; i++) last = yield* send("/buy/limited-buy.com", { headers: { "x-forwarded-for": ip } })
      expect(last.status).toBe(200)
      const refused = yield* send("/buy/limited-buy.com", { headers: { "x-forwarded-for": ip } })
      expect(refused.status).toBe(429)
      expect(refused.headers.get("ratelimit-remaining")).toBe("0")
      expect(refused.headers.get("ratelimit-policy")).toBe("12;w=60")
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(refused.text).toContain("Too many requests")
      // Another client is not limited by this one.
      expect((yield* send("/buy/limited-buy.com", { headers: { "x-forwarded-for": "198.51.100.44" } })).status)
        .toBe(200)

      // Starting a checkout has its own, tighter budget.
      const starter = "198.51.100.5"
      for (let i = 0; i < 6; i++) {
        const r = yield* buyThroughPage("/buy/limited-buy.com", { ip: starter })
        expect(r.started.status).toBe(303)
        expect(r.started.headers.get("ratelimit-policy")).toBe("6;w=60")
      }
      const tooMany = yield* buyThroughPage("/buy/limited-buy.com", { ip: starter })
      expect(tooMany.started.status).toBe(429)
      expect(Number(tooMany.started.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(yield* count("checkout_sessions", "limited-buy.com")).toBe(6)
    }))
})
