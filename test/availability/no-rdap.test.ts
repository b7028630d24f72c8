/**
 * TLDs we sell without an RDAP service (.io, .co, .de have none in the bundled bootstrap) are
 * asked of their WHOIS port-43 server (IANA referral), then of DNS (NS records); they are never
 * `unsupported`, and never `available` unless a registry said "no such domain".
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as DnsServer from "../support/DnsServer.js"
import { rowsOf, search } from "../support/ndjson.js"
import * as RdapServer from "../support/RdapServer.js"
import * as TestServer from "../support/TestServer.js"
import * as WhoisServer from "../support/WhoisServer.js"

const ianaPageWithoutReferral = (tld: string) => WhoisServer.ianaReferral(tld, "").replace(/^refer:.*\n/m, "")

const Env = Layer.unwrapScoped(
  Effect.gen(function*() {
    // RDAP only for .com: .io, .co and .de have no RDAP service, as in the bundled bootstrap.
    const rdap = yield* RdapServer.start({ tlds: { com: "/registry/" } })
    const whois = yield* WhoisServer.start({
      // IANA: .io → a registry that answers; .co → a registry that never answers; .de → no referral.
      "127.0.0.1": (q) => {
        const tld = q.slice(q.lastIndexOf(".") + 1)
        return tld === "io"
          ? WhoisServer.ianaReferral("io", "127.0.0.2")
          : tld === "co"
          ? WhoisServer.ianaReferral("co", "127.0.0.3")
          : ianaPageWithoutReferral(tld)
      },
      "127.0.0.2": (q) => (q === "taken.io" ? WhoisServer.thinRegistry(q, "127.0.0.2") : WhoisServer.noMatch(q)),
      "127.0.0.3": () => ({ hang: true })
    })
    const dns = yield* DnsServer.start({
      "taken.co": [{ type: "NS", data: "ns1.dns.test" }, { type: "NS", data: "ns2.dns.test" }],
      "quiet.co": [{ type: "A", data: "192.0.2.1" }],
      "taken.de": [{ type: "NS", data: "ns1.dns.test" }]
    })
    return TestServer.layer({
      RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
      WHOIS_REFERRAL_SERVER: "127.0.0.1",
      WHOIS_PORT: String(whois.port),
      WHOIS_TIMEOUT: "1 second",
      DNS_RESOLVER: dns.address,
      ALTERNATE_TLDS: "com",
      AVAILABILITY_BREAKER_FAILURES: "1000"
    })
  })
)

const row = (q: string) => Effect.map(search(q), (reply) => rowsOf(reply).get(q))

layer(Env, { excludeTestServices: true, timeout: 180_000 })("availability of a TLD without RDAP", (it) => {
  it.effect("WHOIS answers: registered with its summary, or available on the registry's 'no match'", () =>
    Effect.gen(function*() {
      const taken = yield* row("taken.io")
      expect(taken).toMatchObject({ state: "registered", available: false, price: null, meta: { source: "whois" } })
      expect(taken.whois_summary).toMatchObject({
        registrar: "Example Registrar, Inc.",
        created: "1995-08-14T04:00:00.000Z"
      })
      const free = yield* row("free-name.io")
      expect(free).toMatchObject({ state: "available", available: true, price: 44.99, meta: { source: "whois" } })
    }))

  it.effect("WHOIS silent: DNS NS records prove a registration; no delegation is unknown, never available", () =>
    Effect.gen(function*() {
      const taken = yield* row("taken.co")
      expect(taken).toMatchObject({
        state: "registered",
        available: false,
        whois_summary: null,
        meta: { source: "dns" }
      })
      for (const q of ["quiet.co", "nothing-here.co", "nothing-here.de"]) {
        const r = yield* row(q)
        expect(r, q).toMatchObject({ state: "unknown", available: null, price: null, meta: { source: "none" } })
        expect(r.meta.reason, q).toMatch(/no RDAP service.*whois: .*dns: /)
      }
      expect(yield* row("taken.de")).toMatchObject({ state: "registered", meta: { source: "dns" } })
    }))

  it.effect("a TLD we sell is never unsupported; one we do not sell and nothing can answer for still is", () =>
    Effect.gen(function*() {
      for (const q of ["nothing-here.io", "nothing-here.co", "nothing-here.de"]) {
        expect((yield* row(q)).state, q).not.toBe("unsupported")
      }
      expect(yield* row("art.museum")).toMatchObject({ state: "unsupported", available: false })
    }))
})
