/**
 * WHOIS/RDAP lookups: RDAP first, the WHOIS port-43 client as fallback, the answer stored.
 *
 *   Lookups.lookup(asciiDomain) → Found (stored lookup) | NoData (why each source had nothing)
 *
 * - RDAP found the name → its record (`raw_source: "RDAP"`).
 * - RDAP said 404, failed or has no server for the TLD → WHOIS; found → `raw_source: "WHOIS"`.
 * - Neither has data → `NoData`, with `registered: false` when a source said "no such domain"
 *   and none found it (the HTTP layer answers 404 either way).
 * - The lookup is stored (`lkp_…`); if storing fails the answer still goes out with `id: null`.
 *
 *   Lookups.whois(domain, quota) → the answer of POST /api/tools/whois, for every entry point
 *   (HTTP, batch, MCP): one lookup of the caller's daily quota spent, then `lookup`; failing with
 *   `WhoisQuotaSpent`, `WhoisNotFound` or `WhoisUnavailable` (lookup/Errors.ts).
 */
import { Effect } from "effect"
import type { Viewer } from "../identity/Viewer.js"
import { type RateLimitDecision, RateLimiter, type RateLimitPolicy } from "../platform/http/RateLimit.js"
import { makeId } from "../platform/Ids.js"
import { limits } from "./Api.js"
import { WhoisNotFound, WhoisQuotaSpent, WhoisUnavailable } from "./Errors.js"
import { RdapClient } from "./Rdap.js"
import type { LookupRecord } from "./Record.js"
import { LookupRepo } from "./Repo.js"
import { LookupConfig } from "./Settings.js"
import { WhoisClient } from "./Whois.js"

export interface StoredLookup {
  readonly id: string | null
  readonly domain: string
  readonly result: LookupRecord
  readonly created_at: string
}

export type LookupOutcome =
  | { readonly _tag: "Found"; readonly lookup: StoredLookup }
  | {
    readonly _tag: "NoData"
    /** True when a source answered "no such domain" (rather than failing). */
    readonly notRegistered: boolean
    readonly rdap: string
    readonly whois: string
  }

/** The daily WHOIS quota a caller spends from: per user with a bearer token, else per IP. */
export interface WhoisQuota {
  readonly policy: RateLimitPolicy
  readonly key: string
}

/** The body of a WHOIS answer (201): the stored lookup and where the caller's quota stands. */
export interface WhoisAnswer {
  readonly lookup: StoredLookup
  readonly used: number
  readonly cap: number
  readonly remaining: number
}

const make = Effect.gen(function*() {
  const rdap = yield* RdapClient
  const whois = yield* WhoisClient
  const repo = yield* LookupRepo
  const limiter = yield* RateLimiter
  const lookupSettings = yield* LookupConfig

  const store = (domain: string, result: LookupRecord) =>
    Effect.gen(function*() {
      const now = new Date()
      const id = makeId("lkp")
      const stored = yield* repo.insert({ id, domain, result, createdAt: now }).pipe(
        Effect.as(true),
        Effect.catchAllDefect((e) =>
          Effect.logWarning("could not store a lookup").pipe(
            Effect.annotateLogs({ error: String(e) }),
            Effect.as(false)
          )
        )
      )
      return { id: stored ? id : null, domain, result, created_at: now.toISOString() } satisfies StoredLookup
    })

  const lookup = (asciiDomain: string): Effect.Effect<LookupOutcome> =>
    Effect.gen(function*() {
      const domain = asciiDomain.toLowerCase()
      const fromRdap = yield* Effect.either(rdap.lookupDomain(domain))
      if (fromRdap._tag === "Right" && fromRdap.right._tag === "Found") {
        return { _tag: "Found", lookup: yield* store(domain, { ...fromRdap.right.record, domain }) } as const
      }
      const rdapSays = fromRdap._tag === "Right"
        ? "no such domain (404)"
        : `${fromRdap.left.reason}: ${fromRdap.left.message}`
      const fromWhois = yield* Effect.either(whois.lookupDomain(domain))
      if (fromWhois._tag === "Right" && fromWhois.right._tag === "Found") {
        return { _tag: "Found", lookup: yield* store(domain, { ...fromWhois.right.record, domain }) } as const
      }
      const whoisSays = fromWhois._tag === "Right"
        ? "no such domain"
        : `${fromWhois.left.reason}: ${fromWhois.left.message}`
      return {
        _tag: "NoData",
        notRegistered: (fromRdap._tag === "Right") || (fromWhois._tag === "Right"),
        rdap: rdapSays,
        whois: whoisSays
      } as const
    }).pipe(Effect.withSpan("lookups.lookup", { attributes: { domain: asciiDomain } }))

  const quotaOf = (viewer: Viewer, ip: string): WhoisQuota =>
    viewer._tag === "User"
      ? { policy: { ...limits.whoisBearer, limit: lookupSettings.bearerWhoisCap }, key: `user:${viewer.userId}` }
      : { policy: limits.whois, key: ip }

  /**
   * One WHOIS lookup of an A-label name: spends one lookup of `quota`, then looks the name up.
   * `spent` is told the quota's decision before anything can fail (the HTTP answer shows it in
   * its RateLimit headers, errors included).
   */
  const whoisLookup = (
    asciiDomain: string,
    quota: WhoisQuota,
    spent: (decision: RateLimitDecision) => Effect.Effect<void> = () => Effect.void
  ): Effect.Effect<WhoisAnswer, WhoisQuotaSpent | WhoisNotFound | WhoisUnavailable> =>
    Effect.gen(function*() {
      const d = yield* limiter.consume(quota.policy, quota.key)
      yield* spent(d)
      if (!d.allowed) return yield* WhoisQuotaSpent.of(d)
      const outcome = yield* lookup(asciiDomain)
      if (outcome._tag === "NoData") {
        return yield* outcome.notRegistered
          ? WhoisNotFound.of(asciiDomain)
          : WhoisUnavailable.of(asciiDomain, outcome.rdap, outcome.whois)
      }
      return { lookup: outcome.lookup, used: d.limit - d.remaining, cap: d.limit, remaining: d.remaining }
    })

  return { lookup, quotaOf, whois: whoisLookup }
})

export class Lookups extends Effect.Service<Lookups>()("app/Lookups", {
  effect: make,
  dependencies: [LookupRepo.Default]
}) {
  /** Kept for the existing wiring (src/lookup/Layer.ts). */
  static readonly Live = Lookups.Default
}
