/**
 * The availability engine: one answer per domain, combining (strongest first)
 *
 *   local reserved/blocked list → marketplace listing → registrar check + RDAP
 *
 * (rules in src/domain/Availability.ts). Used by the search stream, keyed availability, batch,
 * the partner endpoints and the tools.
 *
 * - Upstream answers are cached in PostgreSQL (`availability_cache`, shared by replicas) for a
 *   lifetime that depends on the state: short for `available`, long for `registered`; partial
 *   answers (a source failed) use the `unknown` lifetime (default: not cached).
 * - Each upstream runs under a guard (time limit, bounded concurrency, circuit breaker): a slow or
 *   failing upstream yields `unknown` with a reason, never a hang and never `available`.
 * - Local lookups for a whole set of names are batched: the reserved list is an in-process copy,
 *   and `prepare` reads every name's listing and cached answer in one statement (Repo.ts
 *   `localFacts`, the market's `listedAt` fragment beside the cache), then returns one effect per
 *   name for the upstream part: a search of ten names costs one statement plus the upstream calls
 *   it really needs.
 * - Interrupting a check (the client went away) interrupts its upstream calls.
 * - A TLD without RDAP service (no entry in the bootstrap, e.g. .io, .co, .de) is asked of its
 *   WHOIS port-43 server (IANA referral, `WHOIS_REFERRAL_SERVER`), then of DNS (NS records,
 *   `DNS_RESOLVER`): `meta.source` says which answered; when none can say, `unknown`.
 * - Sandbox inventory (`environment: "sandbox"`) never touches the network: unlisted names get a
 *   synthetic, deterministic answer (see `sandboxOutcome`).
 *
 * This file is the engine (local answers, the cache, `prepare`); the upstream evidence is
 * Evidence.ts.
 */
import { Clock, Context, Duration, Effect, identity, Option } from "effect"
import { createHash } from "node:crypto"
import { Catalogue } from "../catalogue/Catalogue.js"
import { RealtimeRegister } from "../catalogue/RealtimeRegister.js"
import { CatalogueConfig } from "../catalogue/Settings.js"
import {
  type AvailabilityState,
  availableOf,
  reservedPatternsFor,
  type UpstreamOutcome,
  type UpstreamSource,
  type WhoisSummary
} from "../domain/Availability.js"
import type { DomainName, InvalidDomainName } from "../domain/DomainName.js"
import { RdapClient } from "../lookup/Rdap.js"
import { LookupConfig } from "../lookup/Settings.js"
import { WhoisClient } from "../lookup/Whois.js"
import type { Environment, ListingRow } from "../market/Market.js"
import { parseDomainInputWith } from "../platform/http/DomainInput.js"
import { type EvidenceSources, upstream } from "./Evidence.js"
import { makeGuard } from "./Guard.js"
import { AvailabilityRepo, DEFAULT_RESERVED, type ReservedRow } from "./Repo.js"
import { AvailabilityConfig } from "./Settings.js"

export type AvailabilitySource = UpstreamSource | "reserved_list" | "marketplace" | "sandbox"

/** One domain's availability, unmasked (callers mask marketplace prices for their viewer). */
export interface Availability {
  /** A-label. */
  readonly domain: string
  readonly domainUnicode: string
  readonly state: AvailabilityState
  readonly available: boolean | null
  /** First-year registration price in USD cents, premium-aware; null unless registrable with a known price. */
  readonly priceCents: number | null
  /**
   * The marketplace listing when the domain is for sale (state `for_sale`), or was sold through
   * the marketplace (state `registered`: keyed availability shows it locked; a search row shows no listing).
   */
  readonly listing: ListingRow | null
  readonly whois: WhoisSummary | null
  /** Answered from the shared cache rather than by asking upstream now. */
  readonly cached: boolean
  readonly source: AvailabilitySource
  /** When the answer was obtained (for a cached answer: when it was first obtained). */
  readonly checkedAt: Date
  readonly latencyMs: number
  readonly reason: string | null
}

export interface CheckOptions {
  readonly environment?: Environment
}

/** Reserved-list matching over the patterns a name can hit. */
const matchReserved = (list: ReadonlyMap<string, ReservedRow>, name: DomainName) => {
  for (const p of reservedPatternsFor(name.registrable, name.label, name.suffix)) {
    const hit = list.get(p)
    if (hit !== undefined) return hit
  }
  return undefined
}

const stableHash = (s: string) => createHash("sha256").update(s).digest().readUInt32BE(0)

/**
 * Sandbox answers, deterministic per name: labels containing "taken" are registered, "premium"
 * are premium at 25× the standard price, "reserved" are reserved, "unknown" are unknown; the
 * rest are registered for one name in three (by hash) and available otherwise.
 */
export const sandboxOutcome = (name: DomainName, standardPriceCents: number | null): UpstreamOutcome => {
  const base = { whois: null, source: "none" as const, complete: true }
  const label = name.label
  if (label.includes("unknown")) {
    return { ...base, state: "unknown", priceCents: null, reason: "sandbox: synthetic unknown" }
  }
  if (label.includes("reserved")) {
    return { ...base, state: "reserved", priceCents: null, reason: "sandbox: synthetic reserved name" }
  }
  if (label.includes("premium")) {
    return {
      ...base,
      state: "premium",
      priceCents: standardPriceCents === null ? null : standardPriceCents * 25,
      reason: null
    }
  }
  if (label.includes("taken") || stableHash(name.registrable) % 3 === 0) {
    return {
      ...base,
      state: "registered",
      priceCents: null,
      whois: {
        registrar: "Sandbox Registrar",
        created: "2020-01-01T00:00:00.000Z",
        expires: "2030-01-01T00:00:00.000Z",
        status: ["active"]
      },
      reason: null
    }
  }
  return { ...base, state: "available", priceCents: standardPriceCents, reason: null }
}

const finish = (
  name: DomainName,
  outcome: UpstreamOutcome,
  extra: { cached: boolean; source: AvailabilitySource; checkedAt: Date; started: number }
) =>
  Effect.map(Clock.currentTimeMillis, (now): Availability => ({
    domain: name.registrable,
    domainUnicode: name.unicode.split(".").slice(-(name.suffix.split(".").length + 1)).join("."),
    state: outcome.state,
    available: availableOf(outcome.state),
    priceCents: outcome.state === "available" || outcome.state === "premium" ? outcome.priceCents : null,
    listing: null,
    whois: outcome.whois,
    cached: extra.cached,
    source: extra.source,
    checkedAt: extra.checkedAt,
    latencyMs: Math.max(0, now - extra.started),
    reason: outcome.reason
  }))

const local = (
  name: DomainName,
  state: "reserved" | "for_sale" | "registered" | "unsupported",
  source: AvailabilitySource,
  reason: string | null,
  listing: ListingRow | null,
  started: number
) =>
  Effect.map(Clock.currentTimeMillis, (now): Availability => ({
    domain: name.registrable,
    domainUnicode: name.unicode.split(".").slice(-(name.suffix.split(".").length + 1)).join("."),
    state,
    available: false,
    priceCents: null,
    listing,
    whois: null,
    cached: false,
    source,
    checkedAt: new Date(now),
    latencyMs: Math.max(0, now - started),
    reason
  }))

/** What `prepare` works with: the evidence sources, the local stores, the cache lifetimes. */
interface EngineDeps extends EvidenceSources {
  readonly repo: Context.Tag.Service<typeof AvailabilityRepo>
  readonly reservedList: Effect.Effect<ReadonlyMap<string, ReservedRow>>
  readonly ttlMs: Record<UpstreamOutcome["state"], number>
}

/** What `prepare` read for all names at once. */
interface LocalFacts {
  readonly environment: Environment
  readonly started: number
  readonly reserved: ReadonlyMap<string, ReservedRow>
  readonly listings: ReadonlyMap<string, ListingRow>
  readonly cache: ReadonlyMap<
    string,
    {
      readonly result: UpstreamOutcome & { readonly source: AvailabilitySource }
      readonly checked_at: Date | string | number
    }
  >
}

/** Asks upstream, stores the answer in the shared cache for its state's lifetime, and finishes. */
const fromUpstream = (d: EngineDeps, name: DomainName, started: number) =>
  Effect.gen(function*() {
    const outcome = yield* upstream(d, name)
    const now = yield* Clock.currentTimeMillis
    const ttl = outcome.complete ? d.ttlMs[outcome.state] : d.ttlMs.unknown
    if (ttl > 0) {
      yield* d.repo.store(name.registrable, outcome, new Date(now), ttl).pipe(
        Effect.catchAllDefect((e) => Effect.logWarning("availability cache write failed", e))
      )
    }
    return yield* finish(name, outcome, {
      cached: false,
      source: outcome.source,
      checkedAt: new Date(now),
      started
    })
  })

/** One name's answer from the local facts (strongest first), else from upstream. */
const answerFor = (d: EngineDeps, name: DomainName, f: LocalFacts): Effect.Effect<Availability> => {
  const started = f.started
  const hit = matchReserved(f.reserved, name)
  if (hit !== undefined) {
    return local(
      name,
      "reserved",
      "reserved_list",
      `${hit.kind === "blocked" ? "blocked" : "reserved"}: ${hit.reason}`,
      null,
      started
    )
  }
  const listing = f.listings.get(name.registrable)
  if (listing !== undefined) {
    // Sold (paid, or transferred) through the marketplace: taken, whatever an older
    // upstream answer in the cache says; offered again only if the sale is refunded.
    return listing.status === "active"
      ? local(name, "for_sale", "marketplace", null, listing, started)
      : local(name, "registered", "marketplace", "sold through the marketplace", listing, started)
  }
  if (!name.knownSuffix) {
    return local(name, "unsupported", "none", `.${name.suffix} is not a delegated public suffix`, null, started)
  }
  if (f.environment === "sandbox") {
    return Effect.flatMap(
      d.standardPrice(name),
      (price) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          finish(name, sandboxOutcome(name, price), {
            cached: false,
            source: "sandbox",
            checkedAt: new Date(now),
            started
          }))
    )
  }
  const cachedAnswer = f.cache.get(name.registrable)
  if (cachedAnswer !== undefined) {
    return finish(name, cachedAnswer.result, {
      cached: true,
      source: cachedAnswer.result.source,
      checkedAt: new Date(cachedAnswer.checked_at),
      started
    })
  }
  return fromUpstream(d, name, started)
}

/**
 * Local lookups for all names at once; returns one effect per name (same order) that completes
 * the check, asking upstream only when the cache has no fresh answer.
 */
const prepare = (d: EngineDeps, names: ReadonlyArray<DomainName>, options?: CheckOptions) =>
  Effect.gen(function*() {
    const environment = options?.environment ?? "live"
    const started = yield* Clock.currentTimeMillis
    const domains = [...new Set(names.map((n) => n.registrable))]
    // The reserved list is an in-process copy (reloaded every CATALOGUE_CACHE_TTL); the listings
    // and the cached answers of all names are one statement.
    const reserved = yield* d.reservedList
    const { cache, listings } = yield* d.repo.localFacts(environment, domains)
    const facts: LocalFacts = { environment, started, reserved, listings, cache }
    return names.map((name): Effect.Effect<Availability> => answerFor(d, name, facts))
  }).pipe(
    // The database is a local dependency: if it fails (an error of the marketplace's reads, a
    // defect of the repositories), every name is unknown rather than the request failing.
    (lookups) => {
      const unknown = (e: unknown) =>
        Effect.logError("availability lookups failed", e).pipe(
          Effect.zipRight(Clock.currentTimeMillis),
          Effect.map((now) =>
            names.map((name) =>
              finish(name, {
                state: "unknown",
                priceCents: null,
                whois: null,
                source: "none",
                reason: "internal: the availability store is unavailable",
                complete: false
              }, { cached: false, source: "none", checkedAt: new Date(now), started: now })
            )
          )
        )
      // The store fails only by defect (its repository dies on SQL errors).
      return lookups.pipe(Effect.catchAllDefect(unknown))
    }
  )

const make = Effect.gen(function*() {
  const settings = yield* AvailabilityConfig
  const lookupSettings = yield* LookupConfig
  const catalogueSettings = yield* CatalogueConfig
  const repo = yield* AvailabilityRepo
  const catalogue = yield* Catalogue
  const guardOptions = {
    timeout: settings.upstreamTimeout,
    concurrency: settings.upstreamConcurrency,
    failures: settings.breakerFailures,
    cooldown: settings.breakerCooldown
  }
  const registrarGuard = yield* makeGuard({ name: "registrar", ...guardOptions })
  const rdapGuard = yield* makeGuard({ name: "RDAP server", ...guardOptions })
  const whoisGuard = yield* makeGuard({ name: "WHOIS server", ...guardOptions, timeout: lookupSettings.whoisTimeout })
  const dnsGuard = yield* makeGuard({ name: "DNS resolver", ...guardOptions })
  const ttlMs: Record<UpstreamOutcome["state"], number> = {
    available: Duration.toMillis(settings.ttl.available),
    premium: Duration.toMillis(settings.ttl.premium),
    registered: Duration.toMillis(settings.ttl.registered),
    reserved: Duration.toMillis(settings.ttl.registered),
    unsupported: Duration.toMillis(settings.ttl.registered),
    unknown: Duration.toMillis(settings.ttl.unknown)
  }

  yield* repo.seedReserved(DEFAULT_RESERVED).pipe(Effect.orDie)
  const loadReserved = Effect.map(repo.reserved, (rows) => new Map(rows.map((r) => [r.pattern, r])))
  // Other processes' changes (the CLI, other replicas) are seen within CATALOGUE_CACHE_TTL.
  const [reservedList, invalidateReserved] = yield* Effect.cachedInvalidateWithTTL(
    loadReserved,
    catalogueSettings.catalogueCacheTtl
  )

  const standardPrice = (name: DomainName) =>
    Effect.map(catalogue.getPrice(name.suffix, "register"), Option.getOrNull).pipe(
      // The price list is read from the database: without it the answer just has no price.
      Effect.catchAllDefect(() => Effect.succeed(null))
    )

  const d: EngineDeps = {
    rtr: yield* RealtimeRegister,
    rdap: yield* RdapClient,
    whois: yield* WhoisClient,
    registrarGuard,
    rdapGuard,
    whoisGuard,
    dnsGuard,
    markupPercent: catalogueSettings.rtr.markupPercent,
    dnsResolver: lookupSettings.dnsResolver,
    upstreamTimeoutMs: Duration.toMillis(settings.upstreamTimeout),
    standardPrice,
    repo,
    reservedList,
    ttlMs
  }
  const check = (name: DomainName, options?: CheckOptions) =>
    Effect.flatMap(prepare(d, [name], options), (effects) => effects[0])
  /** Parses then checks; an invalid name fails with the parse's problem (its caller chooses the wire). */
  const checkText = (input: string, options?: CheckOptions): Effect.Effect<Availability, InvalidDomainName> =>
    Effect.flatMap(parseDomainInputWith(input, identity), (name) => check(name, options))

  const addReserved = (row: ReservedRow) => Effect.zipRight(repo.upsertReserved(row), invalidateReserved)
  const removeReserved = (pattern: string) => Effect.tap(repo.removeReserved(pattern), () => invalidateReserved)

  return {
    prepare: (names: ReadonlyArray<DomainName>, options?: CheckOptions) => prepare(d, names, options),
    check,
    checkText,
    addReserved,
    removeReserved,
    listReserved: repo.reserved,
    purgeExpired: repo.purgeExpired,
    breakerState: { registrar: registrarGuard.stateOf, rdap: rdapGuard.stateOf }
  } as const
})

export class AvailabilityEngine extends Effect.Service<AvailabilityEngine>()("app/AvailabilityEngine", {
  effect: make,
  dependencies: [AvailabilityRepo.Default]
}) {
  /** Kept for the existing wiring (src/availability/Layer.ts). */
  static readonly Live = AvailabilityEngine.Default
}
