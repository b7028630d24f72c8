import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import * as fc from "fast-check"
import { makeLive, sandbox } from "../../src/lookup/Rdap.js"
import { matchBootstrap, parseBootstrap } from "../../src/lookup/RdapMapping.js"
import { normalizeDate, normalizeStatus } from "../../src/lookup/Record.js"
import type { LookupSettings } from "../../src/lookup/Settings.js"
import * as RdapServer from "../support/RdapServer.js"

const settings = (bootstrapUrl: string, over: Partial<LookupSettings> = {}): LookupSettings => ({
  rdapBootstrapUrl: bootstrapUrl,
  rdapBootstrapRefresh: Duration.hours(24),
  rdapMode: "live",
  rdapTimeout: Duration.millis(500),
  rdapMaxRedirects: 2,
  rdapRetryAfterCap: Duration.seconds(1),
  whoisReferralServer: "127.0.0.1",
  whoisPort: 43,
  whoisTimeout: Duration.seconds(1),
  whoisMaxReferrals: 2,
  whoisMaxBytes: 65536,
  bearerWhoisCap: 100,
  dnsResolver: Option.none(),
  jobRetention: Duration.days(1),
  jobLease: Duration.seconds(30),
  jobConcurrency: 1,
  toolCacheTtl: Duration.seconds(60),
  ...over
})

const TLDS = { com: "/registry/", net: "/hang/", org: "/limited/", io: "/loop/", dev: "/broken/" }

const setup = (over: Partial<LookupSettings> = {}) =>
  Effect.gen(function*() {
    const server = yield* RdapServer.start({ tlds: TLDS })
    const client = yield* makeLive(settings(server.bootstrapUrl, over))
    return { server, client }
  }).pipe(Effect.provide(FetchHttpClient.layer))

describe("RDAP client", () => {
  it.scopedLive("maps a thin registry answer and merges the registrar's answer from the related link", () =>
    Effect.gen(function*() {
      const { client, server } = yield* setup()
      server.answer("/registry/domain/example.com", {
        json: RdapServer.domainObject("example.com", {
          registrar: "Example Registrar, Inc.",
          abuseEmail: "abuse@registrar.test",
          status: ["client delete prohibited", "client transfer prohibited"],
          nameservers: ["NS1.EXAMPLE.COM", "ns2.example.com"],
          created: "1995-08-14T04:00:00Z",
          expires: "2030-08-13T04:00:00Z",
          changed: "2025-08-14T07:01:34Z",
          related: `${server.url}/registrar/domain/example.com`
        })
      })
      server.answer("/registrar/domain/example.com", {
        json: RdapServer.domainObject("example.com", {
          registrar: "Example Registrar, Inc.",
          registrant: { fn: "Jane Doe", org: "Example Org", email: "jane@example.org" },
          created: "2001-01-01T00:00:00Z"
        })
      })
      const result = yield* client.lookupDomain("example.com")
      expect(result._tag).toBe("Found")
      if (result._tag !== "Found") return
      expect(result.record).toEqual({
        domain: "example.com",
        status: "client delete prohibited, client transfer prohibited",
        registrar: "Example Registrar, Inc.",
        registrant: "Jane Doe",
        creation_date: "1995-08-14T04:00:00.000Z",
        expiration_date: "2030-08-13T04:00:00.000Z",
        update_date: "2025-08-14T07:01:34.000Z",
        nameservers: ["ns1.example.com", "ns2.example.com"],
        emails: ["abuse@registrar.test", "jane@example.org"],
        raw_source: "RDAP"
      })
      expect(result.statuses).toEqual(["client delete prohibited", "client transfer prohibited"])
      expect(result.registrarUrl).toBe(`${server.url}/registrar/domain/example.com`)
      const registryHit = server.requests.find((r) => r.path === "/registry/domain/example.com")
      expect(registryHit?.accept).toBe("application/rdap+json, application/json")
    }))

  it.scopedLive("does not follow the related link when the registry answer is complete", () =>
    Effect.gen(function*() {
      const { client, server } = yield* setup()
      server.answer("/registry/domain/thick.com", {
        json: RdapServer.domainObject("thick.com", {
          registrar: "R",
          registrant: { fn: "Owner" },
          related: `${server.url}/registrar/domain/thick.com`
        })
      })
      const result = yield* client.lookupDomain("thick.com")
      expect(result._tag === "Found" && result.record.registrant).toBe("Owner")
      expect(server.requests.some((r) => r.path.startsWith("/registrar/"))).toBe(false)
    }))

  it.scopedLive("reports a registrant redacted per RFC 9537", () =>
    Effect.gen(function*() {
      const { client, server } = yield* setup()
      server.answer("/registry/domain/private.com", {
        json: RdapServer.domainObject("private.com", {
          registrar: "R",
          registrant: { fn: "" },
          redactedRegistrant: true
        })
      })
      const result = yield* client.lookupDomain("private.com")
      expect(result._tag === "Found" && result.record.registrant).toBe("REDACTED FOR PRIVACY")
    }))

  it.scopedLive("404 is NotFound; 500 and non-domain bodies are errors", () =>
    Effect.gen(function*() {
      const { client, server } = yield* setup()
      const missing = yield* client.lookupDomain("nobody.com")
      expect(missing).toEqual({
        _tag: "NotFound",
        domain: "nobody.com",
        url: `${server.url}/registry/domain/nobody.com`
      })

      server.answer("/broken/domain/a.dev", { status: 500, json: { errorCode: 500 } })
      const e500 = yield* Effect.flip(client.lookupDomain("a.dev"))
      expect([e500.reason, e500.status]).toEqual(["upstream", 500])

      server.answer("/broken/domain/b.dev", { body: "<html>hello</html>" })
      expect((yield* Effect.flip(client.lookupDomain("b.dev"))).reason).toBe("decode")
      server.answer("/broken/domain/c.dev", { json: { objectClassName: "entity" } })
      expect((yield* Effect.flip(client.lookupDomain("c.dev"))).reason).toBe("decode")
    }))

  it.scopedLive("waits out a short Retry-After once; a long one fails at once and skips the server", () =>
    Effect.gen(function*() {
      const { client, server } = yield* setup()
      server.answer("/limited/domain/short.org", (n) =>
        n === 1
          ? { status: 429, headers: { "retry-after": "1" }, json: { errorCode: 429 } }
          : { json: RdapServer.domainObject("short.org", { registrar: "R" }) })
      const ok = yield* client.lookupDomain("short.org")
      expect(ok._tag).toBe("Found")
      expect(server.requests.filter((r) => r.path === "/limited/domain/short.org")).toHaveLength(2)

      server.answer("/limited/domain/long.org", {
        status: 429,
        headers: { "retry-after": "120" },
        json: { errorCode: 429 }
      })
      const limited = yield* Effect.flip(client.lookupDomain("long.org"))
      expect([limited.reason, limited.status, limited.retryAfter]).toEqual(["rate_limited", 429, 120])
      const before = server.requests.length
      const skipped = yield* Effect.flip(client.lookupDomain("other.org"))
      expect(skipped.reason).toBe("unreachable")
      expect(server.requests.length).toBe(before)
    }))

  it.scopedLive("a hanging server times out, and is then skipped without a new connection", () =>
    Effect.gen(function*() {
      const { client, server } = yield* setup()
      server.answer("/hang/domain/slow.net", { hang: true })
      const timedOut = yield* Effect.flip(client.lookupDomain("slow.net"))
      expect(timedOut.reason).toBe("timeout")
      const before = server.requests.length
      const again = yield* Effect.flip(client.lookupDomain("slow.net"))
      expect(again.reason).toBe("unreachable")
      expect(server.requests.length).toBe(before)
    }))

  it.scopedLive("follows redirects within the bound and refuses a loop", () =>
    Effect.gen(function*() {
      const { client, server } = yield* setup()
      server.answer("/loop/domain/moved.io", { status: 301, headers: { location: "/loop/hop1" } })
      server.answer("/loop/hop1", { status: 307, headers: { location: `${server.url}/loop/final` } })
      server.answer("/loop/final", { json: RdapServer.domainObject("moved.io", { registrar: "R" }) })
      const moved = yield* client.lookupDomain("moved.io")
      expect(moved._tag === "Found" && moved.url).toBe(`${server.url}/loop/final`)

      server.answer("/loop/domain/circle.io", { status: 302, headers: { location: "/loop/domain/circle.io" } })
      const loop = yield* Effect.flip(client.lookupDomain("circle.io"))
      expect(loop.reason).toBe("too_many_redirects")
      expect(server.requests.filter((r) => r.path === "/loop/domain/circle.io")).toHaveLength(3)
    }))

  it.scopedLive("a TLD missing from the bootstrap is unsupported_tld", () =>
    Effect.gen(function*() {
      const { client } = yield* setup()
      const e = yield* Effect.flip(client.lookupDomain("example.xyz"))
      expect(e.reason).toBe("unsupported_tld")
    }))

  it.scopedLive("keeps the bundled IANA snapshot when the bootstrap URL fails", () =>
    Effect.gen(function*() {
      const server = yield* RdapServer.start({ tlds: {} })
      const client = yield* makeLive(settings(`${server.url}/missing.json`)).pipe(Effect.provide(FetchHttpClient.layer))
      const com = yield* client.serverFor("example.com")
      expect(Option.getOrNull(com)).toBe("https://rdap.verisign.com/com/v1/")
      const info = yield* Effect.flip(client.refreshBootstrap)
      expect(info.reason).toBe("upstream")
    }))

  it.live("sandbox mode answers unavailable at once", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(sandbox.lookupDomain("example.com"))
      expect(e.reason).toBe("unavailable")
    }))
})

describe("RDAP bootstrap and mapping (pure)", () => {
  const bootstrap = parseBootstrap({
    services: [
      [["uk"], ["http://uk.example/", "https://uk.example/"]],
      [["co.uk"], ["https://co-uk.example/rdap"]]
    ]
  })

  it("matches the longest suffix and prefers https", () => {
    expect(matchBootstrap(bootstrap, "shop.co.uk")).toEqual(["https://co-uk.example/rdap/"])
    expect(matchBootstrap(bootstrap, "www.shop.CO.UK")).toEqual(["https://co-uk.example/rdap/"])
    expect(matchBootstrap(bootstrap, "shop.org.uk")).toEqual(["https://uk.example/", "http://uk.example/"])
    expect(matchBootstrap(bootstrap, "shop.com")).toBeUndefined()
  })

  it("rejects files that are not bootstrap files", () => {
    expect(() => parseBootstrap({ hello: 1 })).toThrow()
    expect(() => parseBootstrap({ services: [] })).toThrow()
  })

  it("translates EPP status codes to the RDAP vocabulary", () => {
    expect(normalizeStatus("clientTransferProhibited https://icann.org/epp#clientTransferProhibited")).toBe(
      "client transfer prohibited"
    )
    expect(normalizeStatus("ok")).toBe("active")
    expect(normalizeStatus("server hold")).toBe("server hold")
  })

  it("normalises any date to RFC 3339 UTC with milliseconds (property)", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("1985-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }), (d) => {
        const iso = d.toISOString()
        expect(normalizeDate(iso)).toBe(iso)
        expect(normalizeDate(iso.replace("T", " ").replace(/\.\d+Z$/, ""))).toBe(iso.replace(/\.\d+Z$/, ".000Z"))
      })
    )
    expect(normalizeDate("not a date")).toBe("")
  })
})
