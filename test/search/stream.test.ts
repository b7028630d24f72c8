/**
 * POST /api/domain/search against loopback upstreams: an RDAP service (per-TLD delays, one TLD
 * unreachable) and a Realtime Register stand-in (registrar check with premium prices).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { post, realSleep } from "../support/http.js"
import { accessToken } from "../support/identity.js"
import { rowsOf, search } from "../support/ndjson.js"
import { type RtrServer, rtrSettings, startRtrServer, TEST_RTR_ACCOUNT } from "../support/RtrServer.js"
import * as TestServer from "../support/TestServer.js"

class Upstreams extends Context.Tag("test/Upstreams")<Upstreams, {
  readonly rdap: DelayedRdap.DelayedRdapShape
  readonly rtr: RtrServer
}>() {}

const env = Layer.unwrapScoped(
  Effect.gen(function*() {
    const rdap = yield* DelayedRdap.start({
      // The stream-order query: primary slowest, first alternate fastest, second in the middle.
      com: { delayMs: 1500 },
      net: { delayMs: 0 },
      org: { delayMs: 500 },
      io: { registered: ["taken.io", "forsale.io"] },
      ai: {},
      info: { unreachable: true }
    })
    const rtr = yield* startRtrServer({
      ...TEST_RTR_ACCOUNT,
      tlds: {},
      checks: {
        "luxury.ai": { available: true, premium: true, currency: "USD", price: 250_000 },
        "taken.io": { available: false, reason: "Domain is registered" },
        "forsale.io": { available: false, reason: "Domain is registered" },
        "nic.io": { available: false, reason: "Reserved by the registry" }
      },
      broken: ["/v2/domains/down.info/check"]
    })
    return TestServer.layer({
      RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
      ...rtrSettings(rtr),
      ALTERNATE_TLDS: "net,org",
      AVAILABILITY_UPSTREAM_TIMEOUT: "10 seconds",
      DEMO_LISTINGS: "false"
    }).pipe(Layer.merge(Layer.succeed(Upstreams, { rdap, rtr })))
  })
)

const list = (domain: string, binCents: number | null, floorCents: number | null) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents)
        values (${`lst_test_${domain}`}, 'live', ${domain}, ${domain}, ${domain.split(".").slice(1).join(".")},
                ${domain.split(".")[0]}, ${binCents}, ${floorCents})
        on conflict (environment, domain) do nothing`
  ).pipe(Effect.orDie)

const primaryRow = (q: string, headers?: Record<string, string>) =>
  Effect.map(search(q, headers), (reply) => {
    expect(reply.status, JSON.stringify(reply.json)).toBe(200)
    const row = reply.events.find((e) => e.event.kind === "row")?.event
    expect(row.domain).toBe(reply.events[0].event.primary)
    return row
  })

layer(env, { timeout: 120_000 })("POST /api/domain/search", (it) => {
  it.effect("streams header, the primary row, primary_done, the others in completion order, done", () =>
    Effect.gen(function*() {
      const reply = yield* search("brandnew.com", { "x-request-id": "req-stream-order" })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-type")).toBe("application/x-ndjson")
      const kinds = reply.events.map((e) => e.event.kind === "row" ? `row:${e.event.domain}` : e.event.kind)
      // com answers last (1.5 s) but is the primary: first row, then primary_done; net (0 ms)
      // completed before org (500 ms), so it comes first.
      expect(kinds).toEqual([
        "header",
        "row:brandnew.com",
        "primary_done",
        "row:brandnew.net",
        "row:brandnew.org",
        "done"
      ])

      expect(reply.events[0].event).toEqual({
        kind: "header",
        request_id: "req-stream-order",
        primary: "brandnew.com",
        domains: ["brandnew.com", "brandnew.net", "brandnew.org"],
        primary_index: 0
      })
      expect(reply.events[2].event).toEqual({ kind: "primary_done" })
      const done = reply.events[5].event
      expect(Object.keys(done).sort()).toEqual(["count", "duration_ms", "kind"])
      expect(done.count).toBe(3)
      expect(done.duration_ms).toBeGreaterThanOrEqual(1500)
      // The header is written before any lookup: it arrives before the fastest answer could be known.
      expect(reply.events[0].at).toBeLessThan(reply.events[1].at)

      const com = reply.events[1].event
      expect(com).toEqual({
        kind: "row",
        domain: "brandnew.com",
        domain_unicode: "brandnew.com",
        state: "available",
        state_label: "Available",
        available: true,
        price: 10.99,
        listing: null,
        whois_summary: null,
        cached: false,
        meta: {
          source: "registrar+rdap",
          checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          latency_ms: expect.any(Number)
        }
      })
      expect(com.meta.latency_ms).toBeGreaterThanOrEqual(1500)
    }))

  it.effect("rows for a listed, a premium, a reserved, an unregistered, a registered and an unreachable-upstream domain", () =>
    Effect.gen(function*() {
      yield* list("forsale.io", 250_000, 120_000)

      const listed = yield* primaryRow("forsale.io")
      expect(listed).toMatchObject({
        state: "for_sale",
        state_label: "For sale",
        available: false,
        price: { bin: null, floor: null, currency: "USD" },
        listing: {
          id: "lst_test_forsale.io",
          bin_price: null,
          floor_price: null,
          currency: "USD",
          url: expect.stringMatching(/\/api\/market\/listings\/forsale\.io$/)
        },
        whois_summary: null,
        cached: false,
        meta: { source: "marketplace" }
      })

      const premium = yield* primaryRow("luxury.ai")
      // Registry premium: 2,500.00 USD cost plus the 20 % markup, never the 79.99 standard price.
      expect(premium).toMatchObject({
        state: "premium",
        state_label: "Premium",
        available: true,
        price: 3000,
        listing: null
      })

      const rfc2606 = yield* primaryRow("example.com")
      expect(rfc2606).toMatchObject({
        state: "reserved",
        available: false,
        price: null,
        meta: { source: "reserved_list" }
      })
      expect(rfc2606.meta.reason).toContain("RFC 2606")

      const registryReserved = yield* primaryRow("nic.io")
      expect(registryReserved).toMatchObject({
        state: "reserved",
        available: false,
        price: null,
        meta: { reason: "Reserved by the registry" }
      })

      const fresh = yield* primaryRow("fresh-name.io")
      expect(fresh).toMatchObject({
        state: "available",
        available: true,
        price: 44.99,
        whois_summary: null,
        cached: false
      })

      const taken = yield* primaryRow("taken.io")
      expect(taken).toMatchObject({
        state: "registered",
        state_label: "Taken",
        available: false,
        price: null,
        whois_summary: {
          registrar: "Loopback Registrar Inc.",
          created: "2001-02-03T04:05:06.000Z",
          expires: "2031-02-03T04:05:06.000Z",
          status: ["client transfer prohibited", "client delete prohibited"]
        },
        meta: { source: "registrar+rdap", reason: "Domain is registered" }
      })

      const down = yield* primaryRow("down.info")
      expect(down).toMatchObject({
        state: "unknown",
        state_label: "Unknown: try again",
        available: null,
        price: null,
        cached: false
      })
      expect(down.meta.reason).toMatch(/registrar: .*500/)
      expect(down.meta.reason).toMatch(/rdap: unreachable/)
    }))

  it.effect("answers from the PostgreSQL cache the second time, without asking RDAP again", () =>
    Effect.gen(function*() {
      const { rdap } = yield* Upstreams
      const first = yield* primaryRow("cachetest.io")
      expect(first.cached).toBe(false)
      const asked = rdap.lookups().filter((r) => r.domain === "cachetest.io").length
      expect(asked).toBe(1)
      const second = yield* primaryRow("cachetest.io")
      expect(second).toMatchObject({ state: "available", cached: true, price: 44.99 })
      expect(second.meta.checked_at).toBe(first.meta.checked_at)
      expect(rdap.lookups().filter((r) => r.domain === "cachetest.io").length).toBe(1)
      // An unknown answer is not cached: the next search asks again.
      yield* primaryRow("down.info")
      const again = yield* primaryRow("down.info")
      expect(again.cached).toBe(false)
    }))

  it.effect("marketplace prices are unmasked only for a bearer token with pricing:read", () =>
    Effect.gen(function*() {
      yield* list("premiumlisting.io", 1_250_050, 900_000)
      const withScope = yield* accessToken(["pricing:read"])
      const withoutScope = yield* accessToken([])

      const anonymous = yield* primaryRow("premiumlisting.io")
      expect(anonymous.price).toEqual({ bin: null, floor: null, currency: "USD" })
      expect(anonymous.listing).toMatchObject({ bin_price: null, floor_price: null })

      const noScope = yield* primaryRow("premiumlisting.io", { authorization: `Bearer ${withoutScope}` })
      expect(noScope.price).toEqual({ bin: null, floor: null, currency: "USD" })

      const unmasked = yield* primaryRow("premiumlisting.io", { authorization: `Bearer ${withScope}` })
      expect(unmasked.price).toEqual({ bin: 12500.5, floor: 9000, currency: "USD" })
      expect(unmasked.listing).toMatchObject({ bin_price: 12500.5, floor_price: 9000, currency: "USD" })

      // New-registration prices are never masked.
      const registrable = yield* primaryRow("fresh-name.io")
      expect(registrable.price).toBe(44.99)

      const invalid = yield* search("premiumlisting.io", { authorization: "Bearer not-a-token" })
      expect(invalid.status).toBe(401)
      expect(invalid.json.error.code).toBe("invalid_token")
    }))

  it.effect("echoes Idempotency-Key and carries the 60/min RateLimit headers", () =>
    Effect.gen(function*() {
      const reply = yield* search("fresh-name.io", { "idempotency-key": "search-key-1" })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("idempotency-key")).toBe("search-key-1")
      expect(reply.headers.get("ratelimit-limit")).toBe("60")
      expect(reply.headers.get("ratelimit-policy")).toBe("60;w=60")
      expect(Number(reply.headers.get("ratelimit-remaining"))).toBeLessThan(60)
      expect(reply.headers.get("x-request-id")).toMatch(/^req_/)
      // A key that is not 1-255 visible ASCII characters: 400 invalid_idempotency_key naming the header.
      const bad = yield* search("fresh-name.io", { "idempotency-key": "has space" })
      expect(bad.status).toBe(400)
      expect(bad.json.error).toMatchObject({ code: "invalid_idempotency_key", details: { field: "Idempotency-Key" } })
    }))

  it.effect("400 for a missing q or an invalid domain, naming the problem", () =>
    Effect.gen(function*() {
      const missing = yield* post("/api/domain/search", {})
      expect(missing.status).toBe(400)
      expect(missing.json.error.code).toBe("validation_error")
      expect(missing.json.error.message).toContain("q")

      const cases: Array<[string, string]> = [
        ["", "empty"],
        ["exa mple.com", "invalid_character"],
        ["-bad-.com", "hyphen_position"],
        ["a..com", "empty_label"],
        ["localhost", "single_label"],
        ["192.168.0.1", "ip_address"],
        ["co.uk", "suffix_only"],
        [`${"a".repeat(64)}.com`, "label_too_long"]
      ]
      for (const [q, problem] of cases) {
        const reply = yield* post("/api/domain/search", { q })
        expect(reply.status, q).toBe(400)
        expect(reply.json.error.code, q).toBe("invalid_domain")
        expect(reply.json.error.details, q).toEqual({ field: "q", problem })
        expect(reply.json.error.request_id).toBe(reply.headers.get("x-request-id"))
      }
    }))

  it.effect("a Unicode query is checked in A-label form; a subdomain query checks its registrable name only", () =>
    Effect.gen(function*() {
      const idn = yield* search("BÜCHER.io")
      expect(idn.events[0].event.primary).toBe("xn--bcher-kva.io")
      expect(idn.events[0].event.domains).toEqual(["xn--bcher-kva.io", "xn--bcher-kva.net", "xn--bcher-kva.org"])
      const row = rowsOf(idn).get("xn--bcher-kva.io")
      expect(row.domain_unicode).toBe("bücher.io")

      const sub = yield* search("www.shop.io")
      expect(sub.events[0].event.domains).toEqual(["shop.io"])
      expect(sub.events.map((e) => e.event.kind)).toEqual(["header", "row", "primary_done", "done"])

      const psl = yield* search("brand.co.uk")
      expect(psl.events[0].event.domains).toEqual(["brand.co.uk", "brand.net", "brand.org"])
    }))
})

describe("rate limit", () => {
  class Rdap extends Context.Tag("test/Rdap")<Rdap, DelayedRdap.DelayedRdapShape>() {}
  const limited = Layer.unwrapScoped(
    Effect.map(DelayedRdap.start({ com: { delayMs: 50 } }), (rdap) =>
      TestServer.layer({
        RATE_LIMITS: JSON.stringify({ domain_search: 2 }),
        RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
        ALTERNATE_TLDS: "com",
        AVAILABILITY_TTL_AVAILABLE: "0 millis",
        DEMO_LISTINGS: "false"
      }).pipe(Layer.merge(Layer.succeed(Rdap, rdap))))
  )

  layer(limited)("search limit of 2", (it) => {
    it.effect("the third search in the window is 429 rate_limited with Retry-After, and asks no upstream", () =>
      Effect.gen(function*() {
        const rdap = yield* Rdap
        const a = yield* search("first.com")
        const b = yield* search("second.com")
        const c = yield* search("third.com")
        expect([a.status, b.status, c.status]).toEqual([200, 200, 429])
        expect(c.json.error.code).toBe("rate_limited")
        expect(Number(c.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
        expect(c.headers.get("ratelimit-remaining")).toBe("0")
        // Over the limit, bad input is still a 429: the limit is checked first.
        const bad = yield* search("not a domain")
        expect(bad.status).toBe(429)
        yield* realSleep(200)
        expect(rdap.lookups().map((r) => r.domain)).toEqual(["first.com", "second.com"])
      }))
  })
})
