/**
 * The storefront's market pages, landers and offers (issue 33): `/market` (filters, sorts and
 * cursor paging in shareable URLs), `/d/{domain}`, the for-sale lander a listed domain's own Host
 * gets at `/`, and offers (POST /api/market/offers, the pages' form, the operator CLI's decisions
 * with a checkout link in the notifications log). The floor price never reaches a buyer.
 *
 * One server per file, on a database the CLI can reach; TRUST_PROXY=1 so each test is its own IP.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Http from "node:http"
import { runCli } from "../support/cli.js"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { request } from "../support/http.js"
import { rtrSettings, startRtrServer, TEST_RTR_ACCOUNT } from "../support/RtrServer.js"
import * as TestServer from "../support/TestServer.js"

const HTML = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" }
const TIME_IN_WORDS = /\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d\d:\d\d UTC\b/

const env = Layer.unwrapScoped(
  Effect.gen(function*() {
    const rdap = yield* DelayedRdap.start({
      com: {},
      net: {},
      org: {},
      io: { registered: ["forsale.io", "offeronly.io"] }
    })
    const rtr = yield* startRtrServer({
      ...TEST_RTR_ACCOUNT,
      tlds: {},
      checks: {
        "forsale.io": { available: false, reason: "Domain is registered" },
        "offeronly.io": { available: false, reason: "Domain is registered" }
      }
    })
    const databaseUrl = yield* TestServer.sharedDatabaseUrl
    return TestServer.layer({
      RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
      ...rtrSettings(rtr),
      ALTERNATE_TLDS: "net,org",
      AVAILABILITY_UPSTREAM_TIMEOUT: "3 seconds",
      DEMO_LISTINGS: "false",
      LISTINGS_COUNT_CACHE_TTL: "0 seconds",
      TRUST_PROXY: "1",
      RATE_LIMITS: JSON.stringify({ market_offers: 4 })
    }, { databaseUrl })
  })
)

const list = (domain: string, binCents: number | null, floorCents: number | null, listedAt = "2026-11-27T16:18:00Z") =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents, listed_at)
        values (${`lst_mp_${domain}`}, 'live', ${domain}, ${domain}, ${domain.split(".").slice(1).join(".")},
                ${domain.split(".")[0]}, ${binCents}, ${floorCents}, ${listedAt})
        on conflict (environment, domain) do nothing`
  ).pipe(Effect.orDie)

const page = (path: string, ip: string, headers: Record<string, string> = HTML) =>
  request(path, { headers: { ...headers, "x-forwarded-for": ip } })

/** A GET with a Host header of our choosing (fetch does not let a caller set Host). */
const withHost = (path: string, headers: Record<string, string>) =>
  Effect.flatMap(TestServer.TestServer, (server) =>
    Effect.async<{ status: number; text: string }>((resume) => {
      const req = Http.request(
        { host: "127.0.0.1", port: server.port, path, method: "GET", headers: { ...HTML, ...headers } },
        (res) => {
          let text = ""
          res.setEncoding("utf8")
          res.on("data", (d) => (text += d))
          res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, text })))
        }
      )
      req.end()
    }))

const expectPage = (reply: { status: number; headers: Headers; text: string }, status: number) => {
  expect(reply.status, reply.text.slice(0, 500)).toBe(status)
  expect(reply.headers.get("content-type")).toMatch(/^text\/html/)
  const csp = reply.headers.get("content-security-policy") ?? ""
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1]
  expect(nonce, csp).toBeDefined()
  expect(reply.text).toContain(`nonce="${nonce}"`)
  expect(reply.text).toContain(`<html lang="en">`)
  expect(reply.text.match(/<style/g)?.length).toBe(1)
  expect(reply.text).toContain(`<header class="site">`)
  expect(reply.text).toContain(`<footer class="site">`)
  expect(reply.text).toContain("<main")
}

const formCsrf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? ""

const postForm = (path: string, ip: string, fields: Record<string, string>) =>
  request(path, {
    method: "POST",
    headers: { ...HTML, "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip },
    body: new URLSearchParams(fields).toString()
  })

/** The operator CLI on the server's database, with the server's address as its BASE_URL (its links). */
const cli = (args: ReadonlyArray<string>) =>
  Effect.flatMap(TestServer.TestServer, (s) => runCli(s.databaseUrl!, args, { BASE_URL: s.baseUrl }))

layer(env, { timeout: 180_000 })("storefront market pages, landers and offers", (it) => {
  it.effect("/market lists with filters, sorts and cursor paging in shareable URLs; floor never shown", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 26; i++) {
        yield* list(
          `bulk${String(i).padStart(2, "0")}.com`,
          10_000 + i * 100,
          7_777,
          `2026-11-${10 + (i % 15)}T08:00:00Z`
        )
      }
      yield* list("cheapname.net", 1_500, 900)
      const first = yield* page("/market?sort=price_asc", "198.51.100.1")
      expectPage(first, 200)
      expect(first.text).toContain("Domains for sale")
      const names = [...first.text.matchAll(/<li data-domain="([^"]+)"/g)].map((m) => m[1])
      expect(names.length).toBe(24)
      expect(names[0]).toBe("cheapname.net")
      expect(first.text).toContain("Buy now $15.00")
      expect(first.text).toMatch(TIME_IN_WORDS)
      expect(first.text).not.toContain("$77.77")
      expect(first.text).not.toContain("$9.00")
      expect(first.text).toContain(`<option value="price_asc" selected>`)
      const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.text)?.[1]?.replace(/&amp;/g, "&")
      expect(next).toMatch(/^\/market\?sort=price_asc&cursor=/)
      const second = yield* page(next!, "198.51.100.1")
      expectPage(second, 200)
      const more = [...second.text.matchAll(/<li data-domain="([^"]+)"/g)].map((m) => m[1])
      expect(more.length).toBe(3)
      expect(more.some((d) => names.includes(d))).toBe(false)
      expect(second.text).not.toContain(`rel="next"`)

      const net = yield* page("/market?tld=net", "198.51.100.1")
      expect([...net.text.matchAll(/<li data-domain="([^"]+)"/g)].map((m) => m[1])).toEqual(["cheapname.net"])
      expect(net.text).toContain(`href="/d/cheapname.net"`)
      const q = yield* page("/market?q=bulk2", "198.51.100.1")
      expect([...q.text.matchAll(/<li data-domain="([^"]+)"/g)].length).toBe(6)

      const badSort = yield* page("/market?sort=cheapest", "198.51.100.1")
      expectPage(badSort, 400)
      expect(badSort.text).toContain("Choose one of the sorts")
      const badCursor = yield* page("/market?cursor=forged", "198.51.100.1")
      expectPage(badCursor, 400)
      const otherSort = yield* page(next!.replace("price_asc", "price_desc"), "198.51.100.1")
      expectPage(otherSort, 400)
      const badTld = yield* page(`/market?tld=${encodeURIComponent("<b>")}`, "198.51.100.1")
      expectPage(badTld, 400)
      expect(badTld.text).not.toContain("<b>")
    }))

  it.effect("/d/{domain}: status, listing and buy-now link, registration price, alternatives; 404 for a non-name", () =>
    Effect.gen(function*() {
      yield* list("forsale.io", 250_000, 120_000)
      const d = yield* page("/d/forsale.io", "198.51.100.2")
      expectPage(d, 200)
      expect(d.text).toContain("<h1>forsale.io</h1>")
      expect(d.text).toContain(`data-state="for_sale"`)
      expect(d.text).toContain("$2,500.00")
      expect(d.text).toContain(`href="/buy/forsale.io"`)
      expect(d.text).toContain("Make an offer")
      expect(d.text).toMatch(TIME_IN_WORDS)
      expect(d.text).not.toContain("1,200")
      expect(d.text).toContain("<h2>Registration</h2>")
      expect(d.text).toContain("Alternatives")
      expect(d.text).toContain(`data-domain="forsale.net"`)
      expect(d.text).toContain(`href="/d/forsale.net"`)

      // A sale in progress (paid, not yet delivered): no Buy button, and the page says why.
      yield* list("selling.io", 250_000, null)
      const sql = yield* SqlClient.SqlClient
      yield* sql`update listings set status = 'pending' where domain = 'selling.io'`
      const selling = yield* page("/d/selling.io", "198.51.100.2")
      expectPage(selling, 200)
      expect(selling.text).toContain("A sale is in progress.")
      expect(selling.text).not.toContain(`href="/buy/selling.io"`)
      expect(d.text).not.toContain("A sale is in progress.")

      const free = yield* page("/d/brandnew-mp.com", "198.51.100.2")
      expectPage(free, 200)
      expect(free.text).toContain(`data-state="available"`)
      expect(free.text).not.toContain(`id="offer"`)

      const bad = yield* page(`/d/${encodeURIComponent("<script>x")}`, "198.51.100.2")
      expectPage(bad, 404)
      expect(bad.text).toContain("Not a domain name")
      expect(bad.text).not.toContain("<script>x")
    }))

  it.effect("a listed domain's Host gets its for-sale lander at /; unknown hosts get the normal site", () =>
    Effect.gen(function*() {
      yield* list("forsale.io", 250_000, 120_000)
      yield* list("offeronly.io", null, 50_000)
      const lander = yield* withHost("/", { host: "forsale.io", "x-forwarded-for": "198.51.100.3" })
      expect(lander.status).toBe(200)
      expect(lander.text).toContain("<h1>forsale.io is for sale</h1>")
      expect(lander.text).toContain("$2,500.00")
      expect(lander.text).toMatch(/href="http:\/\/[^"]+\/buy\/forsale\.io"/)
      expect(lander.text).toMatch(/<form method="post" action="http:\/\/[^"]+\/d\/forsale\.io\/offer"/)
      expect(lander.text).not.toContain("1,200")
      const withPort = yield* withHost("/", { host: "FORSALE.IO:8080", "x-forwarded-for": "198.51.100.3" })
      expect(withPort.text).toContain("forsale.io is for sale")
      const offerOnly = yield* withHost("/", { host: "offeronly.io", "x-forwarded-for": "198.51.100.3" })
      expect(offerOnly.text).toContain("offeronly.io is for sale")
      expect(offerOnly.text).toContain("takes offers")
      expect(offerOnly.text).not.toContain("$500.00")
      // Behind the trusted proxy, the forwarded host decides.
      const proxied = yield* withHost("/", { "x-forwarded-host": "forsale.io", "x-forwarded-for": "198.51.100.3" })
      expect(proxied.text).toContain("forsale.io is for sale")
      const unknown = yield* withHost("/", { host: "not-listed.example", "x-forwarded-for": "198.51.100.3" })
      expect(unknown.status).toBe(200)
      expect(unknown.text).toContain("Find your domain name")
    }))

  it.effect("POST /api/market/offers: 201 pending whatever the amount, floor never revealed, bad input 4xx and counted, rate limited", () =>
    Effect.gen(function*() {
      yield* list("forsale.io", 250_000, 120_000)
      const ip = { "x-forwarded-for": "198.51.100.4" }
      const low = yield* request("/api/market/offers", {
        method: "POST",
        headers: ip,
        body: { domain: "ForSale.io", amount_cents: 100, email: "buyer@example.test" }
      })
      expect(low.status, low.text).toBe(201)
      expect(Object.keys(low.json).sort()).toEqual(["amount_cents", "created_at", "domain", "id", "status"])
      expect(low.json).toMatchObject({ domain: "forsale.io", amount_cents: 100, status: "pending" })
      expect(low.json.id).toMatch(/^ofr_/)
      const high = yield* request("/api/market/offers", {
        method: "POST",
        headers: ip,
        body: { domain: "forsale.io", amount_cents: 200_000, email: "buyer@example.test" }
      })
      expect(high.status).toBe(201)
      expect(high.json.status).toBe("pending")
      expect(low.text).not.toContain("120000")

      const unlisted = yield* request("/api/market/offers", {
        method: "POST",
        headers: ip,
        body: { domain: "nothing-here.com", amount_cents: 100, email: "buyer@example.test" }
      })
      expect(unlisted.status).toBe(404)
      expect(unlisted.json.error.code).toBe("listing_not_found")
      const badEmail = yield* request("/api/market/offers", {
        method: "POST",
        headers: ip,
        body: { domain: "forsale.io", amount_cents: 100, email: "nope" }
      })
      expect(badEmail.status).toBe(400)
      // Counted at the edge before the body is decoded: bad input uses up the limit too.
      expect(badEmail.headers.get("ratelimit-remaining")).toBe("0")
      const limited = yield* request("/api/market/offers", {
        method: "POST",
        headers: ip,
        body: { domain: "forsale.io", amount_cents: 100, email: "buyer@example.test" }
      })
      expect(limited.status).toBe(429)
      expect(limited.json.error.code).toBe("rate_limited")
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    }))

  it.effect("the OpenAPI document has the offers endpoint (201, its errors, its rate limit) and the pages", () =>
    Effect.gen(function*() {
      const doc = (yield* request("/api/openapi.json")).json
      const op = doc.paths["/api/market/offers"].post
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["201", "400", "404", "429"]))
      expect(op["x-rate-limit"]).toMatchObject({ id: "market_offers", window_seconds: 600 })
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/market", "/d/{domain}", "/d/{domain}/offer"]))
    }))

  it.effect("the pages' offer form: 201 'Offer sent'; a stale token 403; a bad amount 400 with the form again", () =>
    Effect.gen(function*() {
      yield* list("forsale.io", 250_000, 120_000)
      const d = yield* page("/d/forsale.io", "198.51.100.5")
      const csrf = formCsrf(d.text)
      expect(csrf).not.toBe("")
      const sent = yield* postForm("/d/forsale.io/offer", "198.51.100.5", {
        csrf,
        amount: "1,800",
        email: "form@example.test"
      })
      expectPage(sent, 201)
      expect(sent.text).toContain("Offer sent")
      expect(sent.text).toContain("$1,800.00")
      const stale = yield* postForm("/d/forsale.io/offer", "198.51.100.5", {
        csrf: "0.x",
        amount: "1800",
        email: "form@example.test"
      })
      expectPage(stale, 403)
      const bad = yield* postForm("/d/forsale.io/offer", "198.51.100.5", {
        csrf,
        amount: "lots",
        email: "form@example.test"
      })
      expectPage(bad, 400)
      expect(bad.text).toContain("Enter your offer as an amount")
      expect(bad.text).toContain(`value="form@example.test"`)
    }))

  it.effect(
    "offers CLI: list, accept (checkout link at the offer price in the notifications log), counter, decline",
    () =>
      Effect.gen(function*() {
        yield* list("cliname.com", null, 90_000)
        const make = (amount: number, email: string) =>
          Effect.map(
            request("/api/market/offers", {
              method: "POST",
              headers: { "x-forwarded-for": `198.51.100.${10 + amount % 50}` },
              body: { domain: "cliname.com", amount_cents: amount, email }
            }),
            (r) => r.json.id as string
          )
        const a = yield* make(123_400, "accept@example.test")
        const c = yield* make(50_000, "counter@example.test")
        const x = yield* make(100, "decline@example.test")

        const listed = yield* cli(["offers", "list", "--status", "pending", "--json"])
        expect(listed.code, listed.stderr).toBe(0)
        const ids = (JSON.parse(listed.stdout) as Array<{ id: string }>).map((o) => o.id)
        expect(ids).toEqual(expect.arrayContaining([a, c, x]))

        const accepted = yield* cli(["offers", "accept", a, "--json"])
        expect(accepted.code, accepted.stderr).toBe(0)
        const acc = JSON.parse(accepted.stdout)
        expect(acc.status).toBe("accepted")
        expect(acc.checkout_url).toMatch(/\/checkout\?pt=/)
        const sql = yield* SqlClient.SqlClient
        const notes = yield* sql<{ kind: string; message: string }>`
        select kind, message from account_notifications where email = 'accept@example.test'`.pipe(Effect.orDie)
        expect(notes.length).toBe(1)
        expect(notes[0]!.kind).toBe("offer.accepted")
        expect(notes[0]!.message).toContain("$1,234.00")
        const link = /https?:\/\/\S+\/checkout\?pt=\S+/.exec(notes[0]!.message)![0]
        const checkout = yield* page(new URL(link).pathname + new URL(link).search, "198.51.100.6")
        expect(checkout.status, checkout.text.slice(0, 300)).toBe(200)
        expect(checkout.text).toContain("cliname.com")
        expect(checkout.text).toContain("$1,234.00")

        const declined = yield* cli(["offers", "decline", x, "--json"])
        expect(declined.code, declined.stderr).toBe(0)
        expect(JSON.parse(declined.stdout).status).toBe("declined")
        const declinedNote = yield* sql<{ kind: string }>`
        select kind from account_notifications where email = 'decline@example.test'`.pipe(Effect.orDie)
        expect(declinedNote.map((n) => n.kind)).toEqual(["offer.declined"])
        const countered = yield* cli(["offers", "counter", c, "--amount-cents", "75000", "--json"])
        expect(countered.code, countered.stderr).toBe(0)
        expect(JSON.parse(countered.stdout)).toMatchObject({ status: "countered", counter_cents: 75_000 })

        // An offer is decided once: deciding it again is a conflict (exit 4, one line), and
        // nothing changes: still accepted, no second notification.
        const twice = yield* cli(["offers", "decline", a])
        expect(twice.code, twice.stdout + twice.stderr).toBe(4)
        expect(twice.stderr.trim().split("\n")).toHaveLength(1)
        const [still] = yield* sql<{ status: string }>`select status from market_offers where id = ${a}`.pipe(
          Effect.orDie
        )
        expect(still!.status).toBe("accepted")
        const after = yield* sql<{ n: number }>`
        select count(*)::int as n from account_notifications where email = 'accept@example.test'`.pipe(Effect.orDie)
        expect(after[0]!.n).toBe(1)
      }),
    { timeout: 600_000 }
  )
})
