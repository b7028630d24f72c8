/**
 * The free tools through HTTP. Answers are read through the typed client (HttpApiClient.make(Api)):
 * the envelope ({ok, cached, result}, the 202 job, the job status) is decoded by its schema; each
 * tool's `result` is an open record in the schema (ToolResult), so its fields are typed here by cast.
 * Errors are asserted on the wire (code, envelope, headers), and as the classes the typed client
 * decodes them to (InvalidDomain, UnknownTool, …: each endpoint declares its own classes before the
 * generic ones). Malformed input (missing or wrongly typed fields, more than 500 domains) cannot be
 * sent by the typed client.
 */
import type { HttpClientResponse } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { InvalidDomain } from "../../src/platform/http/DomainInput.js"
import type { AcceptedResponse } from "../../src/tools/Api.js"
import { InvalidJobId, InvalidUrl, ToolJobNotFound, UnknownTool } from "../../src/tools/Errors.js"
import { apiClient } from "../support/ApiClient.js"
import * as DnsServer from "../support/DnsServer.js"
import { get, post, typedError } from "../support/http.js"
import * as TestServer from "../support/TestServer.js"

class Site extends Context.Tag("test/Site")<Site, { readonly url: string; readonly hits: Array<string> }>() {}

/** A loopback website: /start → 301 → /final (an HTML page with a title). */
const startSite = Effect.acquireRelease(
  Effect.async<{ server: Http.Server; url: string; hits: Array<string> }>((resume) => {
    const hits: Array<string> = []
    const server = Http.createServer((req, res) => {
      hits.push(req.url ?? "")
      if (req.url === "/start") {
        res.writeHead(301, { location: "/final" })
        return res.end()
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end("<!doctype html><html><head><title>  Hello &amp; welcome </title></head><body>hi</body></html>")
    })
    server.listen(
      0,
      "127.0.0.1",
      () => resume(Effect.succeed({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits }))
    )
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

const Env = Layer.unwrapScoped(
  Effect.gen(function*() {
    const dns = yield* DnsServer.start({
      "example.com": [
        { type: "A", data: "93.184.216.34", ttl: 120 },
        { type: "AAAA", data: "2606:2800:220:1:248:1893:25c8:1946" },
        { type: "MX", data: { preference: 10, exchange: "mail.example.com" } },
        { type: "MX", data: { preference: 5, exchange: "mx0.example.com" } },
        { type: "NS", data: "a.iana-servers.net" },
        { type: "TXT", data: ["v=spf1 -all"] },
        {
          type: "SOA",
          data: {
            mname: "ns.icann.org",
            rname: "noc.dns.icann.org",
            serial: 2024081400,
            refresh: 7200,
            retry: 3600,
            expire: 1209600,
            minimum: 3600
          }
        }
      ],
      "www.example.com": [{ type: "CNAME", data: "example.com" }]
    })
    const site = yield* startSite
    return Layer.merge(
      TestServer.layer({
        DNS_RESOLVER: dns.address,
        OUTBOUND_ALLOW_LOOPBACK: "true",
        RDAP_MODE: "sandbox",
        WHOIS_REFERRAL_SERVER: "127.0.0.1",
        WHOIS_PORT: "9",
        RATE_LIMITS: JSON.stringify({ tool_domain_suggest: 2 })
      }),
      Layer.succeed(Site, { url: site.url, hits: site.hits })
    )
  })
)

/** Polls a job's status (typed: only a 200 decodes) until it is done or failed. */
const pollUntilFinished = (path: string) =>
  Effect.gen(function*() {
    const client = yield* apiClient()
    const [, slug, jobId] = /^\/api\/tools\/([a-z-]+)\/status\/(job_[0-9a-z]{26})$/.exec(path)!
    const seen: Array<string> = []
    for (let i = 0; i < 300; i++) {
      const reply = yield* client.tools.toolJobStatus({ path: { slug: slug!, jobId: jobId! } })
      seen.push(reply.status)
      if (reply.status === "done" || reply.status === "failed") return { reply, seen }
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.dieMessage(`job at ${path} did not finish`)
  })

/** The 202 answer of an async tool (`withResponse: true`): its Location is the job's status path. */
const statusPathOf = (
  [body, response]: readonly [typeof AcceptedResponse.Type, HttpClientResponse.HttpClientResponse]
) => {
  expect(response.status).toBe(202)
  const location = response.headers["location"]!
  expect(location).toMatch(/^\/api\/tools\/[a-z-]+\/status\/job_[0-9a-z]{26}$/)
  expect(body).toEqual({
    ok: true,
    cached: false,
    result: {
      mode: "async",
      jobId: location.split("/").pop(),
      status_url: expect.stringMatching(new RegExp(`${location}$`))
    }
  })
  return location
}

/** A tool's `result`, an open record in the schema, as the shape docs/tools.md gives it. */
const resultOf = <A>(reply: { readonly result: { readonly [key: string]: unknown } }): A => reply.result as unknown as A

/** The appraise tool's result. */
interface Appraisal {
  readonly domain: string
  readonly currency: string
  readonly base: number
  readonly factors: ReadonlyArray<{ readonly name: string }>
  readonly low: number
  readonly estimate: number
  readonly high: number
}

layer(Env, { excludeTestServices: true })("free tools", (it) => {
  it.effect("idn-convert converts both ways, explains UTS-46 errors, and caches identical calls", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const [first, response] = yield* client.tools.idnConvert({ payload: { domain: "Bücher.de" }, withResponse: true })
      expect(response.status).toBe(200)
      expect(first).toEqual({
        ok: true,
        cached: false,
        result: {
          input: "Bücher.de",
          valid: true,
          ascii: "xn--bcher-kva.de",
          unicode: "bücher.de",
          is_idn: true,
          labels: [{ ascii: "xn--bcher-kva", unicode: "bücher" }, { ascii: "de", unicode: "de" }],
          error: null
        }
      })
      expect(response.headers["ratelimit-policy"]).toBe("120;w=60")
      const again = yield* client.tools.idnConvert({ payload: { domain: "Bücher.de" } })
      expect(again.cached).toBe(true)
      expect(again.result).toEqual(first.result)
      const back = yield* client.tools.idnConvert({ payload: { domain: "xn--bcher-kva.de" } })
      expect(back.result.unicode).toBe("bücher.de")
      const bad = yield* client.tools.idnConvert({ payload: { domain: "-bad.com" } })
      expect(bad.result).toMatchObject({ valid: false, ascii: null, error: { code: "hyphen_position" } })
      // Raw: a payload without `domain` (the typed client cannot send it).
      const missing = yield* post("/api/tools/idn-convert", { name: "x" })
      expect(missing.status).toBe(400)
      expect(typedError(missing).code).toBe("validation_error")
    }))

  it.effect("dns-lookup asks the configured resolver over the DNS wire protocol", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const res = yield* client.tools.dnsLookup({ payload: { domain: "example.com" } })
      expect(res.result).toEqual({
        domain: "example.com",
        resolver: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        nxdomain: false,
        errors: {},
        records: {
          A: [{ address: "93.184.216.34", ttl: 120 }],
          AAAA: [{ address: "2606:2800:220:1:248:1893:25c8:1946", ttl: 300 }],
          MX: [{ exchange: "mx0.example.com", priority: 5 }, { exchange: "mail.example.com", priority: 10 }],
          NS: ["a.iana-servers.net"],
          TXT: ["v=spf1 -all"],
          CNAME: [],
          SOA: expect.objectContaining({ nsname: "ns.icann.org", hostmaster: "noc.dns.icann.org", serial: 2024081400 })
        }
      })
      const cname = yield* client.tools.dnsLookup({ payload: { domain: "www.example.com", types: ["CNAME"] } })
      expect(cname.result.records).toEqual({ CNAME: ["example.com"] })
      const nx = yield* client.tools.dnsLookup({ payload: { domain: "nothing.example", types: ["A"] } })
      expect(nx.result).toMatchObject({ nxdomain: true, records: { A: [] } })
      // Raw: PTR is not a type the schema lets the typed client send; invalid_domain is a wire code.
      const badType = yield* post("/api/tools/dns-lookup", { domain: "example.com", types: ["PTR"] })
      expect(badType.status).toBe(400)
      const badName = yield* post("/api/tools/dns-lookup", { domain: "exa mple.com" })
      expect(badName.status).toBe(400)
      expect(typedError(badName).code).toBe("invalid_domain")
    }))

  it.effect("appraise returns a transparent estimate with every factor", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const res = yield* client.tools.appraise({ payload: { domain: "coffee.com" } })
      const r = resultOf<Appraisal>(res)
      expect(r.domain).toBe("coffee.com")
      expect(r.currency).toBe("USD")
      expect(r.base).toBe(1000)
      expect(r.factors.map((f) => f.name)).toContain("length")
      expect(r.low).toBeLessThan(r.estimate)
      expect(r.high).toBeGreaterThan(r.estimate)
      const longer = yield* client.tools.appraise({ payload: { domain: "my-coffee-shop-2024.xyz" } })
      expect(resultOf<Appraisal>(longer).estimate).toBeLessThan(r.estimate)
      expect(typedError(yield* post("/api/tools/appraise", { domain: "nope" })).code).toBe("invalid_domain")
    }))

  it.effect("domain-suggest builds names from keywords with their availability; its per-IP quota answers 429", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const res = yield* client.tools.domainSuggest({
        payload: { keywords: "Coffee Shop", tlds: ["com", "io"], limit: 5 }
      })
      const suggestions = res.result.suggestions as Array<{ domain: string }>
      expect(suggestions.map((s) => s.domain)).toEqual([
        "coffeeshop.com",
        "coffeeshop.io",
        "getcoffeeshop.com",
        "trycoffeeshop.com",
        "mycoffeeshop.com"
      ])
      for (const s of suggestions) {
        expect(Object.keys(s).sort()).toEqual(["available", "domain", "domain_unicode", "price", "state"])
      }
      // Raw: the 400 and the 429 (with Retry-After) are asserted on the wire.
      const empty = yield* post("/api/tools/domain-suggest", { keywords: "!!!" })
      expect(empty.status).toBe(400)
      const refused = yield* post("/api/tools/domain-suggest", { keywords: "tea" })
      expect(refused.status).toBe(429)
      expect(typedError(refused).code).toBe("rate_limited")
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    }))

  it.effect("unknown slugs and jobs are 404, a malformed job id is 400", () =>
    Effect.gen(function*() {
      const unknown = yield* post("/api/tools/teleport", { anything: 1 })
      expect(unknown.status).toBe(404)
      expect(typedError(unknown).code).toBe("unknown_tool")
      expect(typedError(yield* get("/api/tools/teleport/status/job_01hzzzzzzzzzzzzzzzzzzzzzzz")).code).toBe(
        "unknown_tool"
      )
      const malformed = yield* get("/api/tools/site-check/status/not-a-job")
      expect(malformed.status).toBe(400)
      expect(typedError(malformed).code).toBe("invalid_job_id")
      const missing = yield* get("/api/tools/site-check/status/job_01hzzzzzzzzzzzzzzzzzzzzzzz")
      expect(missing.status).toBe(404)
      expect(typedError(missing).code).toBe("job_not_found")

      // Each endpoint declares its specific errors before the generic ones (which accept any code),
      // so a typed client gets the class the service raised.
      const client = yield* apiClient()
      const statusOf = (slug: string, jobId: string) =>
        Effect.flip(client.tools.toolJobStatus({ path: { slug, jobId } }))
      expect(yield* Effect.flip(client.tools.unknownTool({ path: { slug: "teleport" } }))).toBeInstanceOf(UnknownTool)
      expect(yield* statusOf("teleport", "job_01hzzzzzzzzzzzzzzzzzzzzzzz")).toBeInstanceOf(UnknownTool)
      expect(yield* statusOf("site-check", "not-a-job")).toBeInstanceOf(InvalidJobId)
      expect(yield* statusOf("site-check", "job_01hzzzzzzzzzzzzzzzzzzzzzzz")).toBeInstanceOf(ToolJobNotFound)
      expect(yield* Effect.flip(client.tools.appraise({ payload: { domain: "nope" } }))).toBeInstanceOf(InvalidDomain)
      expect(yield* Effect.flip(client.tools.siteCheck({ payload: { url: "ftp://example.com/" } }))).toBeInstanceOf(
        InvalidUrl
      )
    }))

  it.effect("site-check runs as a job: 202 + Location, polled until done, with the status chain, title and timing", () =>
    Effect.gen(function*() {
      const site = yield* Site
      const client = yield* apiClient()
      const accepted = yield* client.tools.siteCheck({ payload: { url: `${site.url}/start` }, withResponse: true })
      const path = statusPathOf(accepted)
      const { reply, seen } = yield* pollUntilFinished(path)
      expect(seen.every((s) => ["queued", "running", "done"].includes(s))).toBe(true)
      expect(reply).toMatchObject({
        jobId: path.split("/").pop(),
        tool: "site-check",
        status: "done",
        attempts: 1
      })
      expect(reply.error).toBeUndefined()
      expect(reply.result).toEqual({
        url: `${site.url}/start`,
        reachable: true,
        final_url: `${site.url}/final`,
        status: 200,
        chain: [{ url: `${site.url}/start`, status: 301, location: "/final" }, {
          url: `${site.url}/final`,
          status: 200
        }],
        title: "Hello & welcome",
        content_type: "text/html; charset=utf-8",
        tls: null,
        response_ms: expect.any(Number),
        error: null
      })
      // The same job under another tool's slug is not found.
      expect((yield* get(path.replace("site-check", "bulk-check"))).status).toBe(404)
    }))

  it.effect("site-check to a private address fails the job without connecting", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const accepted = yield* client.tools.siteCheck({ payload: { url: "http://10.0.0.1/admin" }, withResponse: true })
      const { reply } = yield* pollUntilFinished(statusPathOf(accepted))
      expect(reply.status).toBe("failed")
      expect(reply.error).toMatch(/^address_not_allowed: /)
      expect(reply.result).toEqual({})
      const bad = yield* post("/api/tools/site-check", { url: "ftp://example.com/" })
      expect(bad.status).toBe(400)
      expect(typedError(bad).code).toBe("invalid_url")
    }))

  it.effect("bulk-check reports progress and one item per domain; more than 500 is 400", () =>
    Effect.gen(function*() {
      const domains = [...Array.from({ length: 30 }, (_, i) => `name${i}.com`), "not a domain"]
      const client = yield* apiClient()
      const accepted = yield* client.tools.bulkCheck({ payload: { domains }, withResponse: true })
      const { reply } = yield* pollUntilFinished(statusPathOf(accepted))
      expect(reply.status).toBe("done")
      expect(reply.progress).toEqual({ checked: 31, total: 31 })
      const result = resultOf<{ total: number; checked: number; items: Array<unknown> }>(reply)
      expect([result.total, result.checked, result.items.length]).toEqual([31, 31, 31])
      // No registrar and RDAP in sandbox mode: the engine cannot tell, and says so.
      expect(result.items[0]).toEqual({
        domain: "name0.com",
        state: "unknown",
        available: null,
        price: null,
        error: null
      })
      expect(result.items[30]).toMatchObject({ domain: "not a domain", state: "invalid", available: null })
      // Raw: 501 domains and an empty list are refused by the schema before the typed client sends them.
      const tooMany = yield* post("/api/tools/bulk-check", {
        domains: Array.from({ length: 501 }, (_, i) => `n${i}.com`)
      })
      expect(tooMany.status).toBe(400)
      expect((yield* post("/api/tools/bulk-check", { domains: [] })).status).toBe(400)
    }))
})

describe("OpenAPI", () => {
  layer(TestServer.layer(), { excludeTestServices: true })("tool schemas", (it) => {
    it.effect("publishes each tool's input schema and the status endpoint", () =>
      Effect.gen(function*() {
        const doc = (yield* get("/api/openapi.json")).json
        for (
          const slug of ["idn-convert", "dns-lookup", "domain-suggest", "appraise", "site-check", "bulk-check", "whois"]
        ) {
          expect(doc.paths[`/api/tools/${slug}`]?.post, slug).toBeDefined()
        }
        expect(doc.paths["/api/tools/{slug}/status/{jobId}"]?.get).toBeDefined()
        expect(doc.paths["/api/tools/site-check"].post.responses["202"]).toBeDefined()
        expect(doc.paths["/api/tools/whois"].post.responses["201"]).toBeDefined()
      }))
  })
})
