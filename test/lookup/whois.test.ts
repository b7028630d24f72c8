import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import type { LookupSettings } from "../../src/lookup/Settings.js"
import { bundledServers, makeWhoisClient } from "../../src/lookup/Whois.js"
import { fields, isNotFound, parseRecord, queryLine, serverFor } from "../../src/lookup/WhoisParse.js"
import * as WhoisServer from "../support/WhoisServer.js"

const settings = (port: number, over: Partial<LookupSettings> = {}): LookupSettings => ({
  rdapBootstrapUrl: "",
  rdapBootstrapRefresh: Duration.hours(24),
  rdapMode: "sandbox",
  rdapTimeout: Duration.millis(500),
  rdapMaxRedirects: 2,
  rdapRetryAfterCap: Duration.seconds(1),
  whoisReferralServer: "127.0.0.1",
  whoisPort: port,
  whoisTimeout: Duration.millis(500),
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

describe("WHOIS port-43 client", () => {
  it.scopedLive("follows IANA → registry → registrar and merges the registrar's data", () =>
    Effect.gen(function*() {
      const server = yield* WhoisServer.start({
        "127.0.0.1": () => WhoisServer.ianaReferral("com", "127.0.0.2"),
        "127.0.0.2": (q) => (q === "example.com" ? WhoisServer.thinRegistry(q, "127.0.0.3") : WhoisServer.noMatch(q)),
        "127.0.0.3": (q) => WhoisServer.registrarRecord(q)
      })
      const client = makeWhoisClient(settings(server.port))
      const found = yield* client.lookupDomain("example.com")
      expect(found._tag).toBe("Found")
      if (found._tag !== "Found") return
      expect(found.record).toEqual({
        domain: "example.com",
        status: "client delete prohibited, client transfer prohibited",
        registrar: "Example Registrar, Inc.",
        registrant: "Example Holdings",
        creation_date: "1995-08-14T04:00:00.000Z",
        expiration_date: "2030-08-13T04:00:00.000Z",
        update_date: "2024-08-14T07:01:34.000Z",
        nameservers: ["ns1.example.net", "ns2.example.net"],
        emails: ["abuse@registrar.test", "hostmaster@example.com", "tech@example.com"],
        raw_source: "WHOIS"
      })
      expect([found.server, found.registrarServer]).toEqual(["127.0.0.2", "127.0.0.3"])
      expect(server.queries).toEqual(["127.0.0.1 example.com", "127.0.0.2 example.com", "127.0.0.3 example.com"])

      // The registry learned from the referral is used directly next time.
      const missing = yield* client.lookupDomain("nothing-here.com")
      expect(missing).toEqual({ _tag: "NotFound", domain: "nothing-here.com", server: "127.0.0.2" })
      expect(server.queries.slice(3)).toEqual(["127.0.0.2 nothing-here.com"])
    }))

  it.scopedLive("a hanging server times out; a referral loop is bounded", () =>
    Effect.gen(function*() {
      const server = yield* WhoisServer.start({
        "127.0.0.1": (q) => (q.endsWith(".net")
          ? WhoisServer.ianaReferral("net", "127.0.0.2")
          : WhoisServer.ianaReferral("org", "127.0.0.3")),
        "127.0.0.2": () => ({ hang: true }),
        "127.0.0.3": () => "refer: 127.0.0.4\n",
        "127.0.0.4": () => "refer: 127.0.0.3\n"
      })
      const client = makeWhoisClient(settings(server.port))
      const hang = yield* Effect.flip(client.lookupDomain("slow.net"))
      expect([hang.reason, hang.server]).toEqual(["timeout", "127.0.0.2"])
      const loop = yield* Effect.flip(client.lookupDomain("loop.org"))
      expect(loop.reason).toBe("too_many_referrals")
      expect(server.queries.filter((q) => q.endsWith("loop.org"))).toHaveLength(3)
    }))

  it.scopedLive("reads at most WHOIS_MAX_BYTES of an answer", () =>
    Effect.gen(function*() {
      const big = WhoisServer.thinRegistry("big.com", "127.0.0.3") + "x".repeat(200_000)
      const server = yield* WhoisServer.start({ "127.0.0.1": () => big })
      const client = makeWhoisClient(settings(server.port, { whoisMaxBytes: 4096 }))
      const found = yield* client.lookupDomain("big.com")
      expect(found._tag === "Found" && found.record.registrar).toBe("Example Registrar, Inc.")
    }))

  it.scopedLive("an unreachable server is an error, not a NotFound", () =>
    Effect.gen(function*() {
      const client = makeWhoisClient(settings(1))
      const e = yield* Effect.flip(client.lookupDomain("example.com"))
      expect(e.reason).toBe("unreachable")
    }))
})

describe("WHOIS parsing (pure)", () => {
  it("the bundled table knows each registry's server and query format", () => {
    const com = serverFor(bundledServers, "example.com")
    expect(com?.host).toBe("whois.verisign-grs.com")
    expect(queryLine(com!, "example.com", "example.com")).toBe("DOMAIN example.com\r\n")
    const de = serverFor(bundledServers, "xn--bcher-kva.de")
    expect(queryLine(de!, "xn--bcher-kva.de", "bücher.de")).toBe("-T dn bücher.de\r\n")
    expect(serverFor(bundledServers, "shop.co.uk")?.host).toBe("whois.nic.uk")
  })

  it("recognises per-registry not-found answers and never a real record", () => {
    expect(isNotFound("whois.verisign-grs.com", WhoisServer.noMatch("free.com"))).toBe(true)
    expect(isNotFound("whois.denic.de", "Domain: frei.de\nStatus: free\n")).toBe(true)
    expect(isNotFound("whois.pir.org", "NOT FOUND\n>>> Last update of WHOIS database\n")).toBe(true)
    expect(isNotFound("whois.verisign-grs.com", WhoisServer.thinRegistry("taken.com", "whois.r.test"))).toBe(false)
    expect(isNotFound("whois.example", WhoisServer.registrarRecord("taken.com"))).toBe(false)
  })

  it("reads Nominet's block form", () => {
    const text = `
    Domain name:
        example.co.uk

    Registrant:
        Example Ltd

    Registrar:
        Example Registrar Ltd [Tag = EXAMPLE]
        URL: https://registrar.test

    Relevant dates:
        Registered on: 26-Aug-1996
        Expiry date:  26-Aug-2030
        Last updated:  11-Jul-2024

    Name servers:
        ns1.example.net
        ns2.example.net
`
    expect(fields(text).find((f) => f.key === "registrant")?.value).toBe("Example Ltd")
    const { record } = parseRecord("example.co.uk", text)
    expect(record.registrant).toBe("Example Ltd")
    expect(record.registrar).toBe("Example Registrar Ltd")
    expect(record.creation_date).toBe("1996-08-26T00:00:00.000Z")
    expect(record.expiration_date).toBe("2030-08-26T00:00:00.000Z")
    expect(record.nameservers).toEqual(["ns1.example.net", "ns2.example.net"])
  })
})
