/**
 * Issue 29, items 1 and 13, through HTTP against the real service:
 * - one reservation rule for every channel: partner A's valid quote holds the name; partner B's
 *   quote, order and checkout session, a session opened before the quote (at its page and its
 *   payment, before any charge), the marketplace's `/buy/` and a brokerage deal closing won are
 *   refused with 409 `conflict`, `details.held_until` = the quote's `expires_at`; A's own order
 *   and session go through; after the hold ends anyone may buy;
 * - a sold name stops being offered: after a paid sale the search stream says `registered`
 *   (not `for_sale`, whatever an older answer in the availability cache says) and the partner
 *   search no longer lists it; a refund offers it again.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { CARDS, csrfOf, openSession, page, payWith, postForm, ptOf } from "../support/CheckoutKit.js"
import { startBuy } from "../support/CheckoutKit.js"
import { request } from "../support/http.js"
import { createPartner, expectError, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

const quote = (cred: IssuedCredential, domain: string) =>
  signed(cred, "POST", "/api/partner/v1/quotes", { body: { domain } })

const order = (cred: IssuedCredential, domain: string, price: number, quoteId?: string) =>
  signed(cred, "POST", "/api/partner/v1/orders", {
    body: {
      domain,
      expected_price: price,
      currency: "USD",
      external_payment_ref: `pay-${crypto.randomUUID()}`,
      buyer: { email: "buyer@example.org" },
      ...(quoteId ? { quote_id: quoteId } : {})
    },
    headers: { "idempotency-key": crypto.randomUUID() }
  })

/** The 409 of the reservation rule, with the hold's end. */
const expectHeld = (reply: { status: number; json: any; text: string; headers: Headers }, until: string) => {
  const e = expectError(reply as any, 409, "conflict")
  expect(reply.json.error.details).toEqual({ held_until: until })
  expect(e.message).toContain(until)
}

const partner = (environment: "sandbox" | "live") =>
  createPartner({ environment, scopes: ["search", "buy", "embed", "broker", "report"] })

const countRows = (table: "checkout_sessions" | "partner_orders", domain: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`select count(*)::int as n from ${sql(table)} where domain = ${domain}`
  ).pipe(
    Effect.map((rows) => rows[0]!.n),
    Effect.orDie
  )

/** The search stream's primary row for `q` (the stream is read up to `primary_done`). */
const primaryRow = (q: string) =>
  Effect.gen(function*() {
    const reply = yield* request("/api/domain/search", {
      method: "POST",
      body: JSON.stringify({ q }),
      headers: { "content-type": "application/json" }
    })
    expect(reply.status).toBe(200)
    const rows = reply.text.trim().split("\n").map((l) => JSON.parse(l))
    return rows.find((r) => r.kind === "row")
  })

layer(TestServer.layer({ PARTNER_QUOTE_TTL: "6 seconds", ALTERNATE_TLDS: "co" }), { timeout: 120_000 })(
  "one reservation rule for every channel",
  (it) => {
    it.effect("A's quote holds the name: B's quote, order and checkout session are 409 held_until; A's order goes through", () =>
      Effect.gen(function*() {
        const a = yield* partner("sandbox")
        const b = yield* partner("sandbox")
        yield* seedListings([{ domain: "calmfalcon-rsv.co", bin: 120_000 }])
        const q = yield* quote(a, "calmfalcon-rsv.co")
        expect(q.status).toBe(201)
        const until = q.json.expires_at as string

        expectHeld(yield* quote(b, "calmfalcon-rsv.co"), until)
        expectHeld(yield* order(b, "calmfalcon-rsv.co", 120_000), until)
        expectHeld(yield* openSession(b, { domain: "calmfalcon-rsv.co" }), until)
        expect(yield* countRows("checkout_sessions", "calmfalcon-rsv.co")).toBe(0)

        // A's own session is not refused by A's hold; A's order with its quote is recorded.
        expect((yield* openSession(a, { domain: "calmfalcon-rsv.co" })).status).toBe(201)
        const placed = yield* order(a, "calmfalcon-rsv.co", 120_000, q.json.quote_id)
        expect(placed.status).toBe(201)
      }))

    it.effect("a session opened before the quote: its page shows 'reserved until' and no form; paying is refused before any charge", () =>
      Effect.gen(function*() {
        const a = yield* partner("sandbox")
        const b = yield* partner("sandbox")
        yield* seedListings([{ domain: "early-session-rsv.co", bin: 90_000 }])
        const s = yield* openSession(b, { domain: "early-session-rsv.co" })
        expect(s.status).toBe(201)
        const pt = ptOf(s.json.checkout_url)
        // The buyer opened the page (and its form) before A's quote.
        const before = yield* page(`/checkout?pt=${encodeURIComponent(pt)}`)
        expect(before.text).toContain("name=\"card_number\"")
        const q = yield* quote(a, "early-session-rsv.co")
        expect(q.status).toBe(201)
        const until = q.json.expires_at as string

        const shown = yield* page(`/checkout?pt=${encodeURIComponent(pt)}`)
        expect(shown.status).toBe(409)
        expect(shown.text).toContain(`reserved until ${until}`)
        expect(shown.text).not.toContain("name=\"card_number\"")

        const { baseUrl } = yield* TestServer.TestServer
        const paid = yield* postForm(`/checkout/pay?pt=${encodeURIComponent(pt)}`, {
          csrf: csrfOf(before.text),
          email: "buyer@example.org",
          name: "Ada Buyer",
          country: "NL",
          card_number: CARDS.ok,
          card_exp: "12/34",
          card_cvc: "123"
        }, baseUrl)
        expect(paid.status).toBe(409)
        expect(paid.text).toContain(`reserved until ${until}`)
        expect(paid.text).toContain("You have not been charged")
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<
          { status: string; payment_ref: string | null }
        >`select status, payment_ref from checkout_sessions where id = ${s.json.id}`
        expect(row).toEqual({ status: "open", payment_ref: null })
        expect(yield* countRows("partner_orders", "early-session-rsv.co")).toBe(0)

        expect((yield* order(a, "early-session-rsv.co", 90_000, q.json.quote_id)).status).toBe(201)
      }))

    it.effect("/buy/{domain} while a live partner's quote holds it: 409 page, no session; A's order goes through", () =>
      Effect.gen(function*() {
        const a = yield* partner("live")
        yield* seedListings([{ domain: "house-held-rsv.co", bin: 70_000, environment: "live" }])
        const q = yield* quote(a, "house-held-rsv.co")
        expect(q.status).toBe(201)
        const shown = yield* startBuy("house-held-rsv.co")
        expect(shown.status).toBe(409)
        expect(shown.text).toContain(q.json.expires_at)
        expect(yield* countRows("checkout_sessions", "house-held-rsv.co")).toBe(0)
        expect((yield* order(a, "house-held-rsv.co", 70_000, q.json.quote_id)).status).toBe(201)
      }))

    it.effect("a brokerage deal on a held name cannot close won while the hold lasts", () =>
      Effect.gen(function*() {
        const a = yield* partner("sandbox")
        const b = yield* partner("sandbox")
        yield* seedListings([{ domain: "brokered-rsv.co", bin: 80_000 }])
        const c = yield* signed(b, "POST", "/api/partner/v1/brokerage", {
          body: { domain: "brokered-rsv.co", tier: "managed", buyer_email: "buyer@example.org", budget: 500_000 }
        })
        expect(c.status).toBe(201)
        const advance = () => signed(b, "POST", `/api/partner/v1/sandbox/brokerage/${c.json.id}/advance`)
        for (let i = 0; i < 4; i++) expect((yield* advance()).status).toBe(200)
        const q = yield* quote(a, "brokered-rsv.co")
        expect(q.status).toBe(201)
        expectHeld(yield* advance(), q.json.expires_at)
        const close = yield* request(`/api/admin/brokerage/${c.json.id}/close?outcome=won&price=90000`, {
          method: "POST",
          headers: ADMIN
        })
        expectHeld(close, q.json.expires_at)
        const [kase] = yield* request(`/api/admin/brokerage/${c.json.id}`, { headers: ADMIN }).pipe(
          Effect.map((r) => [r.json])
        )
        expect(kase.status).toBe("deal_agreed")
      }))

    it.effect("when the hold ends, anyone may buy: B's session pays", () =>
      Effect.gen(function*() {
        const a = yield* partner("sandbox")
        const b = yield* partner("sandbox")
        yield* seedListings([{ domain: "expiring-rsv.co", bin: 50_000 }])
        const q = yield* quote(a, "expiring-rsv.co")
        expect(q.status).toBe(201)
        const wait = Date.parse(q.json.expires_at) - Date.now() + 200
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, Math.max(0, wait))))
        const s = yield* openSession(b, { domain: "expiring-rsv.co" })
        expect(s.status).toBe(201)
        const paid = yield* payWith(ptOf(s.json.checkout_url), CARDS.ok)
        expect(paid.status).toBe(303)
        expect(yield* countRows("partner_orders", "expiring-rsv.co")).toBe(1)
      }))

    it.effect("a sold name stops being offered: search says registered (cache or not), partner search drops it; a refund offers it again", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const domain = "soldname-rsv.co"
        yield* seedListings([{ domain, bin: 60_000, environment: "live" }])
        // An older upstream answer in the availability cache must not speak for a sold name.
        const stale = {
          state: "available",
          priceCents: 2_000,
          whois: null,
          source: "rdap",
          reason: null,
          complete: true
        }
        yield* sql`insert into availability_cache (domain, state, result, source, checked_at, expires_at)
          values (${domain}, 'available', ${JSON.stringify(stale)}::jsonb, 'rdap', now(), now() + interval '1 day')`
        const searcher = yield* partner("live")
        const listed = (yield* signed(searcher, "GET", "/api/partner/v1/domains/search?q=soldname")).json
        expect(listed.results.map((r: any) => r.domain)).toContain(domain)
        expect((yield* primaryRow(domain)).state).toBe("for_sale")

        const buy = yield* startBuy(domain)
        expect(buy.status).toBe(303)
        const paid = yield* payWith(ptOf(buy.headers.get("location")!), CARDS.ok)
        expect(paid.status).toBe(303)

        const row = yield* primaryRow(domain)
        expect(row.state).toBe("registered")
        expect(row.listing).toBeNull()
        expect(row.available).toBe(false)
        const after = (yield* signed(searcher, "GET", "/api/partner/v1/domains/search?q=soldname")).json
        expect(after.results.map((r: any) => r.domain)).not.toContain(domain)

        const [o] = yield* sql<{ id: string }>`select id from partner_orders where domain = ${domain}`
        const cancelled = yield* request(`/api/admin/orders/${o!.id}/cancel`, { method: "POST", headers: ADMIN })
        expect(cancelled.status).toBe(200)
        expect((yield* primaryRow(domain)).state).toBe("for_sale")
      }))
  }
)
