/**
 * The storefront's first pages (issue 33): `/` (search first; where a generic referral link
 * lands), `/search?q=…` (server-rendered statuses, friendly bad input, rate limited like the
 * search API) and the HTML 404 for browsers (JSON 404 unchanged for API callers).
 *
 * The server trusts X-Forwarded-For so that each test is its own client IP (own rate-limit bucket).
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { follow } from "../referrals/ReferralKit.js"
import { apiClient } from "../support/ApiClient.js"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { request } from "../support/http.js"
import { createPartner } from "../support/PartnerKit.js"
import { rtrSettings, startRtrServer, TEST_RTR_ACCOUNT } from "../support/RtrServer.js"
import * as TestServer from "../support/TestServer.js"

const HTML = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" }

const env = Layer.unwrapScoped(
  Effect.gen(function*() {
    const rdap = yield* DelayedRdap.start({
      com: {},
      net: {},
      org: {},
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
        "forsale.io": { available: false, reason: "Domain is registered" }
      },
      broken: ["/v2/domains/down.info/check"]
    })
    return TestServer.layer({
      RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
      ...rtrSettings(rtr),
      ALTERNATE_TLDS: "net,org",
      AVAILABILITY_UPSTREAM_TIMEOUT: "3 seconds",
      DEMO_LISTINGS: "false",
      TRUST_PROXY: "true",
      RATE_LIMITS: JSON.stringify({ domain_search: 8 })
    })
  })
)

const list = (domain: string, binCents: number | null, floorCents: number | null) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents)
        values (${`lst_sf_${domain}`}, 'live', ${domain}, ${domain}, ${domain.split(".").slice(1).join(".")},
                ${domain.split(".")[0]}, ${binCents}, ${floorCents})
        on conflict (environment, domain) do nothing`
  ).pipe(Effect.orDie)

const page = (path: string, ip: string, headers: Record<string, string> = HTML) =>
  request(path, { headers: { ...headers, "x-forwarded-for": ip } })

/** The result row of `domain` in a results page. */
const rowOf = (text: string, domain: string) => {
  const m = new RegExp(`<li data-state="([a-z_]+)" data-domain="${domain.replace(/\./g, "\\.")}">([\\s\\S]*?)</li>`)
    .exec(text)
  expect(m, `row of ${domain}`).not.toBeNull()
  return { state: m![1], html: m![2] }
}

const expectPage = (reply: { status: number; headers: Headers; text: string }, status: number) => {
  expect(reply.status, reply.text.slice(0, 500)).toBe(status)
  expect(reply.headers.get("content-type")).toMatch(/^text\/html/)
  expect(reply.headers.get("content-security-policy")).toContain("default-src 'none'")
  expect(reply.text).toMatch(/^<!doctype html>/)
  expect(reply.text).toContain(`<html lang="en">`)
  expect(reply.text).toContain("<main")
  expect(reply.text).toContain(`<form class="search" method="get" action="/search"`)
}

layer(env, { timeout: 120_000 })("storefront pages", (it) => {
  it.effect("/ is the search-first home page, with header, footer and a GET form to /search", () =>
    Effect.gen(function*() {
      const home = yield* page("/", "203.0.113.1")
      expectPage(home, 200)
      expect(home.text).toContain(`<header class="site">`)
      expect(home.text).toContain(`<footer class="site">`)
      expect(home.text).toContain(`href="/docs/storefront.md"`)
      expect(home.text).toContain(`href="/market"`)
      // curl (no Accept) gets the page too: it is a page, not an API route.
      const plain = yield* page("/", "203.0.113.1", {})
      expect(plain.status).toBe(200)
    }))

  it.effect("a generic referral link lands on the home page, not on a JSON 404", () =>
    Effect.gen(function*() {
      const aff = yield* createPartner({ environment: "live", scopes: ["refer", "report"], affiliate: true })
      const client = yield* apiClient({ partner: aff })
      const link = yield* client.partnerReferrals.createLink({ payload: { kind: "generic" } })
      const click = yield* follow(link.code, { ip: "203.0.113.2" })
      expect(click.reply.status).toBeGreaterThanOrEqual(300)
      expect(click.reply.status).toBeLessThan(400)
      const location = new URL(click.reply.headers.get("location")!, "http://x")
      expect(location.pathname).toBe("/")
      const landed = yield* page(`${location.pathname}${location.search}`, "203.0.113.2")
      expectPage(landed, 200)
      expect(landed.text).not.toContain("not_found")
    }))

  it.effect("/search shows each name's status and next action, buy-now linked, floor never shown", () =>
    Effect.gen(function*() {
      yield* list("forsale.io", 250_000, 120_000)
      const forSale = yield* page("/search?q=forsale.io", "203.0.113.3")
      expectPage(forSale, 200)
      const row = rowOf(forSale.text, "forsale.io")
      expect(row.state).toBe("for_sale")
      expect(row.html).toContain("For sale")
      expect(row.html).toContain("$2,500.00")
      expect(row.html).toContain(`href="/buy/forsale.io"`)
      expect(forSale.text).not.toContain("1,200")

      const taken = yield* page("/search?q=taken.io", "203.0.113.3")
      expect(rowOf(taken.text, "taken.io")).toMatchObject({ state: "registered" })
      expect(rowOf(taken.text, "taken.io").html).toContain("Registered")

      const premium = yield* page("/search?q=luxury.ai", "203.0.113.3")
      expect(rowOf(premium.text, "luxury.ai").html).toMatch(/Premium[\s\S]*\$3,000\.00/)

      const reserved = yield* page("/search?q=example.com", "203.0.113.3")
      expect(rowOf(reserved.text, "example.com").state).toBe("reserved")

      const fresh = yield* page("/search?q=brandnew-sf.com", "203.0.113.3")
      expectPage(fresh, 200)
      expect(rowOf(fresh.text, "brandnew-sf.com").html).toContain("Available")
      // The alternates follow the queried name.
      expect(fresh.text.indexOf(`data-domain="brandnew-sf.com"`)).toBeLessThan(
        fresh.text.indexOf(`data-domain="brandnew-sf.net"`)
      )
      expect(fresh.text).toContain(`data-domain="brandnew-sf.org"`)

      const unknown = yield* page("/search?q=down.info", "203.0.113.3")
      expectPage(unknown, 200)
      expect(rowOf(unknown.text, "down.info").state).toMatch(/^(unknown|available|registered)$/)
    }))

  it.effect("/search/stream: the pages' prices (buy-now shown, floor never), the search API's limit and errors", () =>
    Effect.gen(function*() {
      yield* list("streamsale.io", 310_000, 170_000)
      const lines = (text: string) => text.trim().split("\n").map((l) => JSON.parse(l))
      const stream = yield* page("/search/stream?q=streamsale.io", "203.0.113.7", { accept: "application/x-ndjson" })
      expect(stream.status, stream.text).toBe(200)
      expect(stream.headers.get("content-type")).toMatch(/^application\/x-ndjson/)
      const events = lines(stream.text)
      expect(events.map((e) => e.kind)).toEqual(["header", "row", "primary_done", "row", "row", "done"])
      const row = events.find((e) => e.kind === "row" && e.domain === "streamsale.io")
      expect(row.state).toBe("for_sale")
      expect(row.price).toEqual({ bin: 3100, floor: null, currency: "USD" })
      expect(row.listing).toMatchObject({ bin_price: 3100, floor_price: null })
      expect(stream.text).not.toContain("1700")
      // The API's anonymous stream keeps its masking: no market price without pricing:read.
      const api = yield* request("/api/domain/search", {
        method: "POST",
        body: { q: "streamsale.io" },
        headers: { "x-forwarded-for": "203.0.113.7" }
      })
      expect(lines(api.text).find((e) => e.kind === "row" && e.domain === "streamsale.io").price).toEqual({
        bin: null,
        floor: null,
        currency: "USD"
      })

      const bad = yield* page("/search/stream?q=not%20a%20name", "203.0.113.7", { accept: "application/x-ndjson" })
      expect(bad.status).toBe(400)
      expect(bad.json.error.code).toBe("invalid_domain")
      // Same budget as /search and the search API (8 a minute here): the stream is refused with 429 JSON.
      let last = bad
      for (let i = 0; i < 12 && last.status !== 429; i++) {
        last = yield* page("/search/stream?q=x", "203.0.113.7", { accept: "application/x-ndjson" })
      }
      expect(last.status).toBe(429)
      expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(last.json.error.code).toBe("rate_limited")
    }))

  it.effect("a hostile or empty q: a friendly page, escaped, never JSON or 500", () =>
    Effect.gen(function*() {
      const hostile = `<script>alert("x")</script>'&`
      const bad = yield* page(`/search?q=${encodeURIComponent(hostile)}`, "203.0.113.4")
      expectPage(bad, 400)
      expect(bad.text).not.toContain("<script>alert")
      expect(bad.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;")
      expect(bad.text).toContain("not a domain name")

      const empty = yield* page("/search?q=", "203.0.113.4")
      expectPage(empty, 200)
      expect(empty.text).toContain("Type a domain name")
      const none = yield* page("/search", "203.0.113.4")
      expectPage(none, 200)
      const twice = yield* page("/search?q=a&q=b", "203.0.113.4")
      expect(twice.headers.get("content-type")).toMatch(/^text\/html/)
      const long = yield* page(`/search?q=${"a".repeat(5000)}.com`, "203.0.113.4")
      expectPage(long, 400)
      expect(long.text.length).toBeLessThan(20_000)
    }))

  it.effect("over the search limit: a friendly 429 wait page with Retry-After", () =>
    Effect.gen(function*() {
      let last = yield* page("/search?q=example.com", "203.0.113.5")
      for (let i = 0; i < 12 && last.status !== 429; i++) last = yield* page("/search?q=example.com", "203.0.113.5")
      expectPage(last, 429)
      expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(last.text).toContain("Please wait a moment")
    }))

  it.effect("unknown routes: an HTML 404 with a search box for browsers, the JSON 404 for API callers", () =>
    Effect.gen(function*() {
      const browser = yield* page("/no-such-page", "203.0.113.6")
      expectPage(browser, 404)
      expect(browser.text).toContain(`href="/"`)
      const api = yield* page("/no-such-page", "203.0.113.6", { accept: "application/json" })
      expect(api.status).toBe(404)
      expect(api.headers.get("content-type")).toMatch(/^application\/json/)
      expect(api.json.error.code).toBe("not_found")
      const curl = yield* page("/no-such-page", "203.0.113.6", { accept: "*/*" })
      expect(curl.json.error.code).toBe("not_found")
    }))
})
