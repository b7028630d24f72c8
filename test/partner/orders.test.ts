/**
 * Quotes and orders over real HTTP: reservation, price and quote rules, Idempotency-Key under
 * concurrency (exactly one order and one order.recorded event), the review rule, listing and
 * paging with filters, order detail with its timeline.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createPartner, expectError, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const orderBody = (domain: string, expected_price: number, extra: Record<string, unknown> = {}) => ({
  domain,
  expected_price,
  currency: "USD",
  external_payment_ref: `pay_${domain}`,
  buyer: { email: "buyer@example.org", name: "Ada Buyer", country: "GB" },
  ...extra
})

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

layer(TestServer.layer({ REVIEW_THRESHOLD_CENTS: "1000000", PARTNER_QUOTE_TTL: "2 seconds" }))(
  "partner quotes and orders",
  (it) => {
    it.effect("POST /quotes: 201 with a signed quote and a reservation other partners run into", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "quoted.com", bin: 250_000 }])
        const a = yield* createPartner()
        const b = yield* createPartner()
        const q = yield* signed(a, "POST", "/api/partner/v1/quotes", { body: { domain: "QUOTED.com" } })
        expect(q.status, q.text).toBe(201)
        expect(Object.keys(q.json).sort()).toEqual(["currency", "domain", "expires_at", "price_cents", "quote_id"])
        expect(q.json).toMatchObject({ domain: "quoted.com", price_cents: 250_000, currency: "USD" })
        expect(q.json.quote_id).toMatch(/^qt_/)
        const ttl = Date.parse(q.json.expires_at) - Date.now()
        expect(ttl).toBeGreaterThan(0)
        expect(ttl).toBeLessThanOrEqual(2_000)
        // Another partner: quote and order refused while the reservation lives; availability says no.
        expect(
          expectError(
            yield* signed(b, "POST", "/api/partner/v1/quotes", { body: { domain: "quoted.com" } }),
            409,
            "conflict"
          ).message
        ).toContain("reserved")
        expectError(
          yield* signed(b, "POST", "/api/partner/v1/orders", {
            body: orderBody("quoted.com", 250_000),
            headers: { "idempotency-key": crypto.randomUUID() }
          }),
          409,
          "conflict"
        )
        expect((yield* signed(b, "GET", "/api/partner/v1/availability?domain=quoted.com")).json.available).toBe(false)
        expect((yield* signed(a, "GET", "/api/partner/v1/availability?domain=quoted.com")).json.available).toBe(true)
        // The quoting partner may quote again.
        expect((yield* signed(a, "POST", "/api/partner/v1/quotes", { body: { domain: "quoted.com" } })).status).toBe(
          201
        )
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/quotes", { body: { domain: "not-listed.com" } }),
          404,
          "not_found"
        )
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/quotes", { body: { domain: "bad..name" } }),
          400,
          "validation_error"
        )
      }))

    it.effect("orders with a quote: bound to partner, domain and price; 422 quote_expired after the window", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "bound.com", bin: 99_000 }, { domain: "bound2.com", bin: 99_000 }, {
          domain: "late.com",
          bin: 5_000
        }])
        const a = yield* createPartner()
        const b = yield* createPartner()
        const q = (yield* signed(a, "POST", "/api/partner/v1/quotes", { body: { domain: "bound.com" } })).json
        const idem = () => ({ "idempotency-key": crypto.randomUUID() })
        // Another partner cannot use it.
        expect(
          expectError(
            yield* signed(b, "POST", "/api/partner/v1/orders", {
              body: orderBody("bound.com", 99_000, { quote_id: q.quote_id }),
              headers: idem()
            }),
            400,
            "validation_error"
          ).message
        ).toContain("quote_id")
        // Not for another domain.
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/orders", {
            body: orderBody("bound2.com", 99_000, { quote_id: q.quote_id }),
            headers: idem()
          }),
          400,
          "validation_error"
        )
        // Tampered token.
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/orders", {
            body: orderBody("bound.com", 99_000, { quote_id: q.quote_id.slice(0, -2) + "xx" }),
            headers: idem()
          }),
          400,
          "validation_error"
        )
        // Not at another price.
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/orders", {
            body: orderBody("bound.com", 98_999, { quote_id: q.quote_id }),
            headers: idem()
          }),
          422,
          "price_mismatch"
        )
        const ok = yield* signed(a, "POST", "/api/partner/v1/orders", {
          body: orderBody("bound.com", 99_000, { quote_id: q.quote_id }),
          headers: idem()
        })
        expect(ok.status, ok.text).toBe(201)
        expect(ok.json.quote_id).toMatch(/^qt_/)
        // A used quote cannot buy twice.
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/orders", {
            body: orderBody("bound.com", 99_000, { quote_id: q.quote_id }),
            headers: idem()
          }),
          409,
          "conflict"
        )
        // Expiry.
        const late = (yield* signed(a, "POST", "/api/partner/v1/quotes", { body: { domain: "late.com" } })).json
        yield* sleep(2_300)
        const expired = yield* signed(a, "POST", "/api/partner/v1/orders", {
          body: orderBody("late.com", 5_000, { quote_id: late.quote_id }),
          headers: idem()
        })
        expect(expectError(expired, 422, "quote_expired").message).toContain("expired")
        // Once expired, the reservation is gone for others too.
        expect((yield* signed(b, "POST", "/api/partner/v1/quotes", { body: { domain: "late.com" } })).status).toBe(201)
      }))

    it.effect("POST /orders without a quote: price_mismatch, not_found, validation; 201 shape; listing becomes unavailable", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "direct.com", bin: 12_345 }, { domain: "nobin.com", bin: null }])
        const a = yield* createPartner()
        const idem = () => ({ "idempotency-key": crypto.randomUUID() })
        const mismatch = yield* signed(a, "POST", "/api/partner/v1/orders", {
          body: orderBody("direct.com", 12_000),
          headers: idem()
        })
        expect(expectError(mismatch, 422, "price_mismatch").message).toContain("12345")
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/orders", { body: orderBody("unlisted.com", 1), headers: idem() }),
          404,
          "not_found"
        )
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/orders", { body: orderBody("nobin.com", 1), headers: idem() }),
          409,
          "conflict"
        )
        for (
          const bad of [
            { ...orderBody("direct.com", 12_345), buyer: { email: "not-an-email" } },
            { ...orderBody("direct.com", 12_345), currency: "usd" },
            { ...orderBody("direct.com", 12_345), return_url: "javascript:alert(1)" },
            { domain: "direct.com", expected_price: 12_345, currency: "USD", buyer: { email: "a@b.co" } }
          ]
        ) {
          expectError(
            yield* signed(a, "POST", "/api/partner/v1/orders", { body: bad, headers: idem() }),
            400,
            "validation_error"
          )
        }
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/orders", {
            body: orderBody("direct.com", 12_345, { currency: "EUR" }),
            headers: idem()
          }),
          400,
          "validation_error"
        )
        const created = yield* signed(a, "POST", "/api/partner/v1/orders", {
          body: orderBody("direct.com", 12_345, {
            return_url: "https://shop.example/ok",
            cancel_url: "https://shop.example/cancel"
          }),
          headers: idem()
        })
        expect(created.status, created.text).toBe(201)
        expect(created.headers.get("idempotent-replayed")).toBeNull()
        expect(created.json).toEqual({
          public_id: expect.stringMatching(/^ord_[0-9a-z]{26}$/),
          domain: "direct.com",
          status: "EXTERNALLY_PAID",
          sale_price_cents: 12_345,
          currency: "USD",
          environment: "sandbox",
          external_payment_ref: "pay_direct.com",
          quote_id: null,
          buyer: { email: "buyer@example.org", name: "Ada Buyer", country: "GB" },
          return_url: "https://shop.example/ok",
          cancel_url: "https://shop.example/cancel",
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
          updated_at: expect.any(String)
        })
        expect((yield* signed(a, "GET", "/api/partner/v1/availability?domain=direct.com")).json.available).toBe(false)
        expectError(
          yield* signed(a, "POST", "/api/partner/v1/orders", {
            body: orderBody("direct.com", 12_345),
            headers: idem()
          }),
          409,
          "conflict"
        )
      }))

    it.effect("50 concurrent identical POST /orders with one key: one order, one order.recorded event; replays carry Idempotent-Replayed", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "race.com", bin: 77_700 }])
        const a = yield* createPartner()
        const key = crypto.randomUUID()
        const body = JSON.stringify(orderBody("race.com", 77_700))
        const replies = yield* Effect.all(
          Array.from(
            { length: 50 },
            () => signed(a, "POST", "/api/partner/v1/orders", { body, headers: { "idempotency-key": key } })
          ),
          { concurrency: "unbounded" }
        )
        const statuses = replies.map((r) => r.status)
        expect(statuses.every((s) => s === 201 || s === 409), statuses.join(",")).toBe(true)
        const created = replies.filter((r) => r.status === 201)
        expect(created.length).toBeGreaterThanOrEqual(1)
        const ids = new Set(created.map((r) => r.json.public_id))
        expect(ids.size).toBe(1)
        expect(created.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1)
        // Twins that arrived while the first was running: in progress, with when to retry.
        for (const r of replies.filter((r) => r.status === 409)) {
          expect(r.json.error.code).toBe("idempotency_in_progress")
          expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
        }
        // After the dust settles: the same key replays the same order.
        const replay = yield* signed(a, "POST", "/api/partner/v1/orders", { body, headers: { "idempotency-key": key } })
        expect(replay.status).toBe(201)
        expect(replay.headers.get("idempotent-replayed")).toBe("true")
        expect(replay.json).toEqual(created[0].json)
        const sql = yield* SqlClient.SqlClient
        const orders = yield* sql<
          { n: number }
        >`select count(*)::int as n from partner_orders where domain = 'race.com'`
        expect(orders[0].n).toBe(1)
        const events = yield* sql<
          { n: number }
        >`select count(*)::int as n from partner_events where type = 'order.recorded' and data->'order'->>'domain' = 'race.com'`
        expect(events[0].n).toBe(1)
        // Same key, other body → 409.
        const other = yield* signed(a, "POST", "/api/partner/v1/orders", {
          body: orderBody("race.com", 77_700, { external_payment_ref: "another" }),
          headers: { "idempotency-key": key }
        })
        expect(expectError(other, 409, "conflict").message).toContain("Idempotency-Key")
      }))

    it.effect("review rule: at or above REVIEW_THRESHOLD_CENTS the order is held in MANUAL_REVIEW", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "premium-big.com", bin: 1_000_000 }, { domain: "just-under.com", bin: 999_999 }])
        const a = yield* createPartner()
        const big = yield* signed(a, "POST", "/api/partner/v1/orders", {
          body: orderBody("premium-big.com", 1_000_000),
          headers: { "idempotency-key": crypto.randomUUID() }
        })
        expect(big.json.status).toBe("MANUAL_REVIEW")
        const small = yield* signed(a, "POST", "/api/partner/v1/orders", {
          body: orderBody("just-under.com", 999_999),
          headers: { "idempotency-key": crypto.randomUUID() }
        })
        expect(small.json.status).toBe("EXTERNALLY_PAID")
        const detail = yield* signed(a, "GET", `/api/partner/v1/orders/${big.json.public_id}`)
        expect(detail.json.timeline.map((t: any) => t.status)).toEqual(["EXTERNALLY_PAID", "MANUAL_REVIEW"])
        expect(detail.json.timeline[0].event_id).toMatch(/^evt_/)
        expect(detail.json.transfer).toEqual({ status: "not_started", started_at: null, completed_at: null })
      }))

    it.effect("GET /orders: filters, cursor paging without gaps or repeats; other partners' orders invisible", () =>
      Effect.gen(function*() {
        const domains = Array.from({ length: 7 }, (_, i) => `page${i}.com`)
        yield* seedListings(domains.map((domain) => ({ domain, bin: 1_000 })))
        const a = yield* createPartner()
        const b = yield* createPartner()
        const ids: Array<string> = []
        for (const d of domains) {
          const r = yield* signed(a, "POST", "/api/partner/v1/orders", {
            body: orderBody(d, 1_000),
            headers: { "idempotency-key": crypto.randomUUID() }
          })
          ids.push(r.json.public_id)
        }
        const seen: Array<string> = []
        let cursor: string | null = null
        let pages = 0
        do {
          const q: string = `/api/partner/v1/orders?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
          const page = yield* signed(a, "GET", q)
          expect(page.status, page.text).toBe(200)
          seen.push(...page.json.orders.map((o: any) => o.public_id))
          cursor = page.json.next_cursor
          pages++
        } while (cursor !== null && pages < 10)
        expect(seen.filter((id) => ids.includes(id))).toEqual([...ids].reverse())
        expect(new Set(seen).size).toBe(seen.length)
        const byDomain = yield* signed(a, "GET", "/api/partner/v1/orders?domain=page3.com")
        expect(byDomain.json.orders.map((o: any) => o.public_id)).toEqual([ids[3]])
        const byStatus = yield* signed(a, "GET", "/api/partner/v1/orders?status=SETTLED")
        expect(byStatus.json).toEqual({ orders: [], next_cursor: null })
        const future = yield* signed(a, "GET", "/api/partner/v1/orders?from=2999-01-01")
        expect(future.json.orders).toEqual([])
        const past = yield* signed(
          a,
          "GET",
          `/api/partner/v1/orders?to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&limit=100`
        )
        expect(past.json.orders.length).toBeGreaterThanOrEqual(7)
        expectError(yield* signed(a, "GET", "/api/partner/v1/orders?from=yesterday"), 400, "validation_error")
        expectError(yield* signed(a, "GET", "/api/partner/v1/orders?status=SHIPPED"), 400, "validation_error")
        const limitZero = yield* signed(a, "GET", "/api/partner/v1/orders?limit=0")
        expectError(limitZero, 400, "validation_error")
        // One complaint about the optional `limit`, without "Expected undefined" beside it.
        expect(limitZero.json.error.details.map((d: any) => d.path)).toEqual([["limit"]])
        // A cursor is bound to its filters.
        const first = yield* signed(a, "GET", "/api/partner/v1/orders?limit=2")
        expectError(
          yield* signed(
            a,
            "GET",
            `/api/partner/v1/orders?limit=2&status=SETTLED&cursor=${encodeURIComponent(first.json.next_cursor)}`
          ),
          400,
          "validation_error"
        )
        // Partner b sees none of them; a's order is 404 for b.
        expect((yield* signed(b, "GET", "/api/partner/v1/orders")).json.orders).toEqual([])
        expectError(yield* signed(b, "GET", `/api/partner/v1/orders/${ids[0]}`), 404, "not_found")
        expectError(yield* signed(a, "GET", "/api/partner/v1/orders/ord_doesnotexist"), 404, "not_found")
      }))
  }
)
