/**
 * Quotes and orders over real HTTP: reservation, price and quote rules, Idempotency-Key under
 * concurrency (exactly one order and one order.recorded event), the review rule, listing and
 * paging with filters, order detail with its timeline.
 */
import type { HttpClientResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { IssuedCredential } from "../../../src/partner/Credentials.js"
import { DomainNotListed } from "../../../src/partner/inventory/Errors.js"
import type { OrderPage, OrderRequest } from "../../../src/partner/orders/Api.js"
import { IdempotencyKey } from "../../../src/platform/http/IdempotencyKey.js"
import { apiClient, expectFailure } from "../../support/ApiClient.js"
import { createPartner, expectError, seedListings, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

const orderBody = (
  domain: string,
  expected_price: number,
  extra: Partial<typeof OrderRequest.Type> = {}
): typeof OrderRequest.Type => ({
  domain,
  expected_price,
  currency: "USD",
  external_payment_ref: `pay_${domain}`,
  buyer: { email: "buyer@example.org", name: "Ada Buyer", country: "GB" },
  ...extra
})

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** The Idempotency-Key header POST /orders requires (a fresh one unless given). */
const keyed = (key: string = crypto.randomUUID()) => ({ "idempotency-key": IdempotencyKey.make(key) })

/** POST /orders through the typed client signed as `cred`, with a fresh Idempotency-Key. */
const createOrder = (cred: IssuedCredential, payload: typeof OrderRequest.Type) =>
  Effect.flatMap(
    apiClient({ partner: cred }),
    (client) => client.partnerOrders.createOrder({ payload, headers: keyed() })
  )

// Quotes live 8 s: long enough for the steps that need one alive on a loaded CI, short enough to wait out.
layer(TestServer.layer({ REVIEW_THRESHOLD_CENTS: "1000000", PARTNER_QUOTE_TTL: "8 seconds" }))(
  "partner quotes and orders",
  (it) => {
    it.effect("POST /quotes: 201 with a signed quote and a reservation other partners run into", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "quoted.com", bin: 250_000 }])
        const a = yield* createPartner()
        const b = yield* createPartner()
        const clientA = yield* apiClient({ partner: a })
        const clientB = yield* apiClient({ partner: b })
        // Raw: the exact key set is the wire form (the typed client drops keys its schema lacks).
        const q = yield* signed(a, "POST", "/api/partner/v1/quotes", { body: { domain: "QUOTED.com" } })
        expect(q.status, q.text).toBe(201)
        expect(Object.keys(q.json).sort()).toEqual(["currency", "domain", "expires_at", "price_cents", "quote_id"])
        expect(q.json).toMatchObject({ domain: "quoted.com", price_cents: 250_000, currency: "USD" })
        expect(q.json.quote_id).toMatch(/^qt_/)
        const ttl = Date.parse(q.json.expires_at) - Date.now()
        expect(ttl).toBeGreaterThan(0)
        expect(ttl).toBeLessThanOrEqual(8_000)
        // Another partner: quote and order refused while the reservation lives; availability says no.
        expect(
          (yield* expectFailure(
            clientB.partnerOrders.createQuote({ payload: { domain: "quoted.com" } }),
            409,
            "conflict"
          )).message
        ).toContain("reserved")
        yield* expectFailure(createOrder(b, orderBody("quoted.com", 250_000)), 409, "conflict")
        expect((yield* clientB.partnerInventory.availability({ urlParams: { domain: "quoted.com" } })).available).toBe(
          false
        )
        expect((yield* clientA.partnerInventory.availability({ urlParams: { domain: "quoted.com" } })).available).toBe(
          true
        )
        // The quoting partner may quote again.
        const [, again] = yield* clientA.partnerOrders.createQuote({
          payload: { domain: "quoted.com" },
          withResponse: true
        })
        expect(again.status).toBe(201)
        // Unlisted: 404 not_found, the finer reason in details (issue 29, item 11).
        const unlisted = yield* expectFailure(
          clientA.partnerOrders.createQuote({ payload: { domain: "not-listed.com" } }),
          404,
          "not_found"
        )
        expect(unlisted).toBeInstanceOf(DomainNotListed)
        expect((unlisted as DomainNotListed).details).toEqual({ reason: "domain_not_listed" })
        yield* expectFailure(
          clientA.partnerOrders.createQuote({ payload: { domain: "bad..name" } }),
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
        const clientA = yield* apiClient({ partner: a })
        const q = yield* clientA.partnerOrders.createQuote({ payload: { domain: "bound.com" } })
        // Another partner cannot use it.
        expect(
          (yield* expectFailure(
            createOrder(b, orderBody("bound.com", 99_000, { quote_id: q.quote_id })),
            400,
            "validation_error"
          )).message
        ).toContain("quote_id")
        // Not for another domain.
        yield* expectFailure(
          createOrder(a, orderBody("bound2.com", 99_000, { quote_id: q.quote_id })),
          400,
          "validation_error"
        )
        // Tampered token.
        yield* expectFailure(
          createOrder(a, orderBody("bound.com", 99_000, { quote_id: q.quote_id.slice(0, -2) + "xx" })),
          400,
          "validation_error"
        )
        // Not at another price.
        yield* expectFailure(
          createOrder(a, orderBody("bound.com", 98_999, { quote_id: q.quote_id })),
          422,
          "price_mismatch"
        )
        const [ok, okResponse] = yield* clientA.partnerOrders.createOrder({
          payload: orderBody("bound.com", 99_000, { quote_id: q.quote_id }),
          headers: keyed(),
          withResponse: true
        })
        expect(okResponse.status).toBe(201)
        expect(ok.quote_id).toMatch(/^qt_/)
        // A used quote cannot buy twice.
        yield* expectFailure(
          createOrder(a, orderBody("bound.com", 99_000, { quote_id: q.quote_id })),
          409,
          "conflict"
        )
        // Expiry.
        const late = yield* clientA.partnerOrders.createQuote({ payload: { domain: "late.com" } })
        yield* sleep(8_300)
        const expired = yield* expectFailure(
          createOrder(a, orderBody("late.com", 5_000, { quote_id: late.quote_id })),
          422,
          "quote_expired"
        )
        expect(expired.message).toContain("expired")
        // Once expired, the reservation is gone for others too.
        const [, lateForB] = yield* Effect.flatMap(
          apiClient({ partner: b }),
          (client) => client.partnerOrders.createQuote({ payload: { domain: "late.com" }, withResponse: true })
        )
        expect(lateForB.status).toBe(201)
      }))

    it.effect("POST /orders without a quote: price_mismatch, not_found, validation; 201 shape; listing becomes unavailable", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "direct.com", bin: 12_345 }, { domain: "nobin.com", bin: null }])
        const a = yield* createPartner()
        const client = yield* apiClient({ partner: a })
        const idem = () => keyed()
        const mismatch = yield* expectFailure(createOrder(a, orderBody("direct.com", 12_000)), 422, "price_mismatch")
        expect(mismatch.message).toContain("12345")
        yield* expectFailure(createOrder(a, orderBody("unlisted.com", 1)), 404, "not_found")
        yield* expectFailure(createOrder(a, orderBody("nobin.com", 1)), 409, "conflict")
        // Raw: bodies the request schema refuses, which the typed client would not send.
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
        yield* expectFailure(
          createOrder(a, orderBody("direct.com", 12_345, { currency: "EUR" })),
          400,
          "validation_error"
        )
        // Raw: the 201's exact shape and headers are the wire contract.
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
          updated_at: expect.any(String),
          // How it was sold and the partner's commission (default 10 %, rounded down).
          payment_model: "partner_collected",
          commission_cents: 1_234,
          brokerage: null
        })
        expect((yield* client.partnerInventory.availability({ urlParams: { domain: "direct.com" } })).available).toBe(
          false
        )
        yield* expectFailure(createOrder(a, orderBody("direct.com", 12_345)), 409, "conflict")
      }))

    it.effect("50 concurrent identical POST /orders with one key: one order, one order.recorded event; replays carry Idempotent-Replayed", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "race.com", bin: 77_700 }])
        const a = yield* createPartner()
        const key = crypto.randomUUID()
        // Raw: what is asserted is the wire under concurrency (statuses, Idempotent-Replayed,
        // Retry-After, the replayed body).
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
        // Same key, the same JSON written another way (keys reordered, spacing, 77700.0): the same
        // body, so the stored order again.
        const reformatted = `{
          "buyer": { "country": "GB", "name": "Ada Buyer", "email": "buyer@example.org" },
          "external_payment_ref": "pay_race.com", "currency": "USD", "expected_price": 77700.0, "domain": "race.com"
        }`
        const again = yield* signed(a, "POST", "/api/partner/v1/orders", {
          body: reformatted,
          headers: { "idempotency-key": key }
        })
        expect(again.status, again.text).toBe(201)
        expect(again.headers.get("idempotent-replayed")).toBe("true")
        expect(again.json).toEqual(created[0].json)
        // Same key, other body → 409.
        const other = yield* expectFailure(
          Effect.flatMap(apiClient({ partner: a }), (client) =>
            client.partnerOrders.createOrder({
              payload: orderBody("race.com", 77_700, { external_payment_ref: "another" }),
              headers: keyed(key)
            })),
          409,
          "conflict"
        )
        expect(other.message).toContain("Idempotency-Key")
      }))

    it.effect("review rule: at or above REVIEW_THRESHOLD_CENTS the order is held in MANUAL_REVIEW", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "premium-big.com", bin: 1_000_000 }, { domain: "just-under.com", bin: 999_999 }])
        const a = yield* createPartner()
        const big = yield* createOrder(a, orderBody("premium-big.com", 1_000_000))
        expect(big.status).toBe("MANUAL_REVIEW")
        const small = yield* createOrder(a, orderBody("just-under.com", 999_999))
        expect(small.status).toBe("EXTERNALLY_PAID")
        const client = yield* apiClient({ partner: a })
        const detail = yield* client.partnerOrders.getOrder({ path: { public_id: big.public_id } })
        expect(detail.timeline.map((t) => t.status)).toEqual(["EXTERNALLY_PAID", "MANUAL_REVIEW"])
        expect(detail.timeline[0]!.event_id).toMatch(/^evt_/)
        // Held for review: its delivery has not started (the fulfilment fields: docs/fulfilment.md).
        expect(detail.transfer).toMatchObject({
          status: "not_started",
          started_at: null,
          completed_at: null,
          state: "pending",
          attempts: 0,
          last_error: null
        })
      }))

    it.effect("GET /orders: filters, cursor paging without gaps or repeats; other partners' orders invisible", () =>
      Effect.gen(function*() {
        const domains = Array.from({ length: 7 }, (_, i) => `page${i}.com`)
        yield* seedListings(domains.map((domain) => ({ domain, bin: 1_000 })))
        const a = yield* createPartner()
        const b = yield* createPartner()
        const ids: Array<string> = []
        for (const d of domains) {
          ids.push((yield* createOrder(a, orderBody(d, 1_000))).public_id)
        }
        const clientA = yield* apiClient({ partner: a })
        const clientB = yield* apiClient({ partner: b })
        const seen: Array<string> = []
        let cursor: string | null = null
        let pages = 0
        do {
          const [page, response]: readonly [typeof OrderPage.Type, HttpClientResponse.HttpClientResponse] =
            yield* clientA.partnerOrders.listOrders({
              urlParams: cursor ? { limit: 3, cursor } : { limit: 3 },
              withResponse: true
            })
          expect(response.status).toBe(200)
          seen.push(...page.orders.map((o) => o.public_id))
          cursor = page.next_cursor
          pages++
        } while (cursor !== null && pages < 10)
        expect(seen.filter((id) => ids.includes(id))).toEqual([...ids].reverse())
        expect(new Set(seen).size).toBe(seen.length)
        const byDomain = yield* clientA.partnerOrders.listOrders({ urlParams: { domain: "page3.com" } })
        expect(byDomain.orders.map((o) => o.public_id)).toEqual([ids[3]])
        const byStatus = yield* clientA.partnerOrders.listOrders({ urlParams: { status: "SETTLED" } })
        expect(byStatus).toEqual({ orders: [], next_cursor: null })
        const future = yield* clientA.partnerOrders.listOrders({ urlParams: { from: "2999-01-01" } })
        expect(future.orders).toEqual([])
        const past = yield* clientA.partnerOrders.listOrders({
          urlParams: { to: new Date(Date.now() + 60_000).toISOString(), limit: 100 }
        })
        expect(past.orders.length).toBeGreaterThanOrEqual(7)
        yield* expectFailure(
          clientA.partnerOrders.listOrders({ urlParams: { from: "yesterday" } }),
          400,
          "validation_error"
        )
        // Raw: a status and a limit the urlParams schema refuses (the typed client would not send them).
        expectError(yield* signed(a, "GET", "/api/partner/v1/orders?status=SHIPPED"), 400, "validation_error")
        const limitZero = yield* signed(a, "GET", "/api/partner/v1/orders?limit=0")
        expectError(limitZero, 400, "validation_error")
        // One complaint about the optional `limit`, without "Expected undefined" beside it.
        expect(limitZero.json.error.details.map((d: any) => d.path)).toEqual([["limit"]])
        // A cursor is bound to its filters.
        const first = yield* clientA.partnerOrders.listOrders({ urlParams: { limit: 2 } })
        expect(first.next_cursor).not.toBeNull()
        yield* expectFailure(
          clientA.partnerOrders.listOrders({
            urlParams: { limit: 2, status: "SETTLED", cursor: first.next_cursor ?? "" }
          }),
          400,
          "validation_error"
        )
        // …and to the credential it was issued to, as every partner cursor is (/transactions too).
        const stolen = yield* expectFailure(
          clientB.partnerOrders.listOrders({ urlParams: { limit: 2, cursor: first.next_cursor ?? "" } }),
          400,
          "validation_error"
        )
        expect(stolen.message).toContain("not a cursor this endpoint issued to you")
        // Partner b sees none of them; a's order is 404 for b.
        expect((yield* clientB.partnerOrders.listOrders({ urlParams: {} })).orders).toEqual([])
        yield* expectFailure(clientB.partnerOrders.getOrder({ path: { public_id: ids[0]! } }), 404, "not_found")
        yield* expectFailure(
          clientA.partnerOrders.getOrder({ path: { public_id: "ord_doesnotexist" } }),
          404,
          "not_found"
        )
      }))
  }
)
