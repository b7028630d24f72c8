/**
 * The lookup rules (src/lookup/Lookups.ts) through stand-in layers, no server and no database:
 * RDAP first and WHOIS as the fallback, what "no data" says, a lookup that cannot be stored still
 * answered, and the WHOIS quota spent before any upstream is asked. RDAP is `RdapClient.Test` (the
 * sandbox: every lookup fails `unavailable`) or a scripted client; WHOIS is scripted; the limiter
 * is `RateLimiter.Test` (exactly the limit, in this process).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { WhoisNotFound, WhoisQuotaSpent, WhoisUnavailable } from "../../src/lookup/Errors.js"
import { Lookups } from "../../src/lookup/Lookups.js"
import { RdapClient, type RdapClientShape } from "../../src/lookup/Rdap.js"
import { RdapError } from "../../src/lookup/RdapError.js"
import type { LookupRecord } from "../../src/lookup/Record.js"
import { LookupRepo } from "../../src/lookup/Repo.js"
import { LookupConfig } from "../../src/lookup/Settings.js"
import { WhoisClient, type WhoisClientShape, WhoisError } from "../../src/lookup/Whois.js"
import { RateLimiter } from "../../src/platform/http/RateLimit.js"

const record = (domain: string, raw_source: LookupRecord["raw_source"]): LookupRecord => ({
  domain,
  status: "active",
  registrar: "Example Registrar",
  registrant: "",
  creation_date: "2001-02-03T04:05:06.000Z",
  expiration_date: "2031-02-03T04:05:06.000Z",
  update_date: "",
  nameservers: ["ns1.example.net"],
  emails: [],
  raw_source
})

/** What each upstream knows: a name's answer, or a failure when absent. */
interface Script {
  readonly rdap?: Readonly<Record<string, "found" | "not-found">>
  readonly whois?: Readonly<Record<string, "found" | "not-found">>
  /** The store dies (a database failure is a defect in the repository). */
  readonly storeFails?: boolean
}

const scriptedRdap = (answers: NonNullable<Script["rdap"]>): Layer.Layer<RdapClient> =>
  Layer.effect(
    RdapClient,
    Effect.map(RdapClient, (sandbox): RdapClientShape => ({
      ...sandbox,
      lookupDomain: (domain) =>
        answers[domain] === "found"
          ? Effect.succeed({
            _tag: "Found",
            domain,
            record: record(domain, "RDAP"),
            statuses: ["active"],
            url: `http://rdap.test/domain/${domain}`,
            registrarUrl: undefined
          })
          : answers[domain] === "not-found"
          ? Effect.succeed({ _tag: "NotFound", domain, url: `http://rdap.test/domain/${domain}` })
          : Effect.fail(new RdapError({ reason: "upstream", message: "the registry answered 503" }))
    }))
  ).pipe(Layer.provide(RdapClient.Test))

/** Lookups over stand-ins; `asked` records every upstream question, `stored` every stored lookup. */
const standIns = (script: Script) => {
  const asked: Array<string> = []
  const stored: Array<string> = []
  const whois = Layer.succeed(WhoisClient, {
    lookupDomain: (domain) =>
      Effect.suspend((): ReturnType<WhoisClientShape["lookupDomain"]> => {
        asked.push(`whois ${domain}`)
        const answer = script.whois?.[domain]
        return answer === "found"
          ? Effect.succeed({
            _tag: "Found",
            domain,
            record: record(domain, "WHOIS"),
            statuses: [],
            server: "whois.test",
            registrarServer: undefined
          })
          : answer === "not-found"
          ? Effect.succeed({ _tag: "NotFound", domain, server: "whois.test" })
          : Effect.fail(new WhoisError({ reason: "timeout", message: "whois.test did not answer" }))
      })
  })
  const rdap = Layer.effect(
    RdapClient,
    Effect.map(RdapClient, (client): RdapClientShape => ({
      ...client,
      lookupDomain: (domain, options) =>
        Effect.zipRight(Effect.sync(() => asked.push(`rdap ${domain}`)), client.lookupDomain(domain, options))
    }))
  ).pipe(Layer.provide(script.rdap === undefined ? RdapClient.Test : scriptedRdap(script.rdap)))
  const repo = Layer.succeed(
    LookupRepo,
    LookupRepo.make({
      insert: (row) =>
        script.storeFails === true ? Effect.die(new Error("database down")) : Effect.sync(() => stored.push(row.id))
    })
  )
  const layer = Lookups.DefaultWithoutDependencies.pipe(
    Layer.provide(Layer.mergeAll(rdap, whois, repo, RateLimiter.Test, LookupConfig.Live))
  )
  return { layer, asked, stored }
}

describe("Lookups: RDAP first, WHOIS as the fallback", () => {
  it.effect("RDAP's record when RDAP has the name; WHOIS is not asked; the lookup is stored", () => {
    const { asked, layer, stored } = standIns({ rdap: { "example.com": "found" } })
    return Effect.gen(function*() {
      const outcome = yield* (yield* Lookups).lookup("Example.COM")
      expect(outcome._tag).toBe("Found")
      if (outcome._tag !== "Found") return
      expect(outcome.lookup.result.raw_source).toBe("RDAP")
      expect(outcome.lookup.domain).toBe("example.com")
      expect(outcome.lookup.id).toMatch(/^lkp_/)
      expect(stored).toEqual([outcome.lookup.id])
      expect(asked).toEqual(["rdap example.com"])
    }).pipe(Effect.provide(layer))
  })

  it.effect("WHOIS's record when RDAP says 404 or fails", () => {
    const { asked, layer } = standIns({
      rdap: { "gone.com": "not-found" },
      whois: { "gone.com": "found", "flaky.com": "found" }
    })
    return Effect.gen(function*() {
      const lookups = yield* Lookups
      for (const domain of ["gone.com", "flaky.com"]) {
        const outcome = yield* lookups.lookup(domain)
        expect(outcome._tag === "Found" && outcome.lookup.result.raw_source).toBe("WHOIS")
      }
      expect(asked).toEqual(["rdap gone.com", "whois gone.com", "rdap flaky.com", "whois flaky.com"])
    }).pipe(Effect.provide(layer))
  })

  it.effect("no data: 'not registered' when a source said so, with what each source said", () => {
    const { layer } = standIns({ whois: { "free.com": "not-found" } })
    return Effect.gen(function*() {
      const lookups = yield* Lookups
      const free = yield* lookups.lookup("free.com")
      expect(free).toMatchObject({ _tag: "NoData", notRegistered: true, whois: "no such domain" })
      expect(free._tag === "NoData" && free.rdap).toMatch(/^unavailable: RDAP lookups are disabled/)
      const unknown = yield* lookups.lookup("dark.com")
      expect(unknown).toMatchObject({
        _tag: "NoData",
        notRegistered: false,
        whois: "timeout: whois.test did not answer"
      })
    }).pipe(Effect.provide(layer))
  })

  it.effect("a lookup the database cannot store is still answered, with id null", () => {
    const { layer, stored } = standIns({ rdap: { "example.com": "found" }, storeFails: true })
    return Effect.gen(function*() {
      const outcome = yield* (yield* Lookups).lookup("example.com")
      expect(outcome._tag === "Found" && outcome.lookup.id).toBeNull()
      expect(stored).toEqual([])
    }).pipe(Effect.provide(layer))
  })
})

describe("Lookups.whois: the quota first, then the lookup", () => {
  it.effect("10 a day per IP; the 11th is refused before any upstream is asked", () => {
    const { asked, layer } = standIns({ rdap: { "example.com": "found" } })
    return Effect.gen(function*() {
      const lookups = yield* Lookups
      const quota = lookups.quotaOf({ _tag: "Anonymous" }, "192.0.2.7")
      const remaining: Array<number> = []
      for (let i = 0; i < 10; i++) remaining.push((yield* lookups.whois("example.com", quota)).remaining)
      expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
      const refused = yield* Effect.either(lookups.whois("example.com", quota))
      expect(Either.isLeft(refused) && refused.left).toBeInstanceOf(WhoisQuotaSpent)
      expect(asked.length).toBe(10)
      // Another caller's quota is its own.
      const other = yield* lookups.whois("example.com", lookups.quotaOf({ _tag: "Anonymous" }, "192.0.2.8"))
      expect(other).toMatchObject({ used: 1, cap: 10, remaining: 9 })
    }).pipe(Effect.provide(layer))
  })

  it.effect("no data answers WhoisNotFound when a source said 'no such domain', else WhoisUnavailable", () => {
    const { layer } = standIns({ whois: { "free.com": "not-found" } })
    return Effect.gen(function*() {
      const lookups = yield* Lookups
      const quota = lookups.quotaOf({ _tag: "Anonymous" }, "192.0.2.9")
      const free = yield* Effect.flip(lookups.whois("free.com", quota))
      expect(free).toBeInstanceOf(WhoisNotFound)
      const dark = yield* Effect.flip(lookups.whois("dark.com", quota))
      expect(dark).toBeInstanceOf(WhoisUnavailable)
      expect(dark.message).toContain("dark.com")
    }).pipe(Effect.provide(layer))
  })
})
