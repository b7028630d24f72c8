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
 * - Local lookups for a whole set of names (reserved list, listings, cache) are batched: `prepare`
 *   does them in two queries and returns one effect per name for the upstream part, so a search
 *   of ten names costs two queries plus the upstream calls it really needs.
 * - Interrupting a check (the client went away) interrupts its upstream calls.
 * - A TLD without RDAP service (no entry in the bootstrap, e.g. .io, .co, .de) is asked of its
 *   WHOIS port-43 server (IANA referral, `WHOIS_REFERRAL_SERVER`), then of DNS (NS records,
 *   `DNS_RESOLVER`): `meta.source` says which answered; when none can say, `unknown`.
 * - Sandbox inventory (`environment: "sandbox"`) never touches the network: unlisted names get a
 *   synthetic, deterministic answer (see `sandboxOutcome`).
 */
import { Clock, Context, Duration, Effect, Either, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import { Catalogue } from "../catalogue/Catalogue.js"
import { RealtimeRegister, type RtrDomainCheck, type RtrError } from "../catalogue/RealtimeRegister.js"
import { CatalogueConfig } from "../catalogue/Settings.js"
import {
  type AvailabilityState,
  availableOf,
  combineEvidence,
  type RdapEvidence,
  type RegistrarEvidence,
  reservedPatternsFor,
  type UpstreamOutcome,
  type UpstreamSource,
  type WhoisSummary
} from "../domain/Availability.js"
import { type DomainName, type InvalidDomainName, parseDomainName } from "../domain/DomainName.js"
import { dnsLookup } from "../lookup/DnsLookup.js"
import { RdapClient, type RdapError, type RdapLookup } from "../lookup/Rdap.js"
import { LookupConfig } from "../lookup/Settings.js"
import { WhoisClient, type WhoisError } from "../lookup/Whois.js"
import { type Environment, type ListingRow, Market } from "../market/Market.js"
import { isRejected, makeGuard, type Rejected } from "./Guard.js"
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

const whoisOf = (found: Extract<RdapLookup, { _tag: "Found" }>): WhoisSummary => ({
  registrar: found.record.registrar || null,
  created: found.record.creation_date || null,
  expires: found.record.expiration_date || null,
  status: found.statuses
})

const describeRtr = (e: RtrError | Rejected) => isRejected(e) ? e.message : `${e.reason}: ${e.message}`
const describeRdap = (e: RdapError | Rejected) => isRejected(e) ? e.message : `${e.reason}: ${e.message}`
const describeWhois = (e: WhoisError | Rejected) => isRejected(e) ? e.message : `${e.reason}: ${e.message}`

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

const make = Effect.gen(function*() {
  const availabilitySettings = yield* AvailabilityConfig
  const lookupSettings = yield* LookupConfig
  const catalogueSettings = yield* CatalogueConfig
  const repo = yield* AvailabilityRepo
  const market = yield* Market
  const catalogue = yield* Catalogue
  const rtr = yield* RealtimeRegister
  const rdap = yield* RdapClient
  const whois = yield* WhoisClient
  const settings = availabilitySettings
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

  const registrarEvidence = (name: DomainName): Effect.Effect<RegistrarEvidence> => {
    if (rtr.mode === "sandbox") return Effect.succeed({ _tag: "NotConfigured" })
    return registrarGuard.run("registrar", rtr.checkDomain(name.registrable), (e) => e.reason !== "not_found").pipe(
      Effect.map((c: RtrDomainCheck): RegistrarEvidence => {
        const usd = c.currency === undefined || c.currency.toUpperCase() === "USD"
        const markup = 1 + catalogueSettings.rtr.markupPercent / 100
        return {
          _tag: "Answered",
          available: c.available,
          premium: c.premium === true,
          priceCents: c.price !== undefined && usd ? Math.round(c.price * markup) : null,
          reason: c.reason ?? null
        }
      }),
      Effect.catchAll((e) => Effect.succeed<RegistrarEvidence>({ _tag: "Failed", reason: describeRtr(e) }))
    )
  }

  /**
   * A TLD without RDAP: its WHOIS server ("no match" is as authoritative as an RDAP 404), then DNS
   * (NS records prove a registration; their absence proves nothing: a registered name need not
   * be delegated). NoService with every source's reason when none can say.
   */
  const withoutRdap = (name: DomainName, noRdap: string): Effect.Effect<RdapEvidence> =>
    Effect.gen(function*() {
      const fromWhois = yield* Effect.either(
        whoisGuard.run(name.suffix, whois.lookupDomain(name.registrable), (e) => e.reason !== "no_server")
      )
      if (fromWhois._tag === "Right") {
        const answer = fromWhois.right
        if (answer._tag === "NotFound") return { _tag: "Unregistered", via: "whois" } as const
        return {
          _tag: "Registered",
          via: "whois",
          whois: {
            registrar: answer.record.registrar || null,
            created: answer.record.creation_date || null,
            expires: answer.record.expiration_date || null,
            status: answer.statuses
          }
        } as const
      }
      const whoisSays = describeWhois(fromWhois.left)
      const fromDns = yield* Effect.either(
        dnsGuard.run(
          "dns",
          dnsLookup(lookupSettings.dnsResolver, name.registrable, ["NS"], Duration.toMillis(settings.upstreamTimeout))
            .pipe(
              Effect.flatMap((r) => r.errors.NS !== undefined ? Effect.fail(`DNS ${r.errors.NS}`) : Effect.succeed(r))
            )
        )
      )
      if (fromDns._tag === "Right" && (fromDns.right.records.NS?.length ?? 0) > 0) {
        return { _tag: "Registered", via: "dns", whois: null } as const
      }
      const dnsSays = fromDns._tag === "Left"
        ? (typeof fromDns.left === "string" ? fromDns.left : fromDns.left.message)
        : fromDns.right.nxdomain
        ? "no delegation (NXDOMAIN), which does not prove the name is free"
        : "no NS records, which does not prove the name is free"
      return { _tag: "NoService", reason: `${noRdap}; whois: ${whoisSays}; dns: ${dnsSays}` } as const
    })

  const rdapEvidence = (name: DomainName): Effect.Effect<RdapEvidence> =>
    Effect.gen(function*() {
      const server = yield* rdap.serverFor(name.registrable)
      if (Option.isNone(server) && rdap.mode === "live") {
        return yield* withoutRdap(name, `no RDAP service is registered for .${name.suffix}`)
      }
      const key = Option.getOrElse(server, () => name.suffix)
      return yield* rdapGuard.run(
        key,
        rdap.lookupDomain(name.registrable, { followRelated: false }),
        (e) => e.reason !== "unsupported_tld"
      ).pipe(
        Effect.map((r): RdapEvidence =>
          r._tag === "Found" ? { _tag: "Registered", whois: whoisOf(r) } : { _tag: "Unregistered" }
        ),
        Effect.catchAll((e): Effect.Effect<RdapEvidence> =>
          !isRejected(e) && e.reason === "unsupported_tld"
            ? rdap.mode === "live"
              ? withoutRdap(name, e.message)
              : Effect.succeed({ _tag: "NoService", reason: e.message })
            : Effect.succeed({ _tag: "Failed", reason: describeRdap(e) })
        )
      )
    })

  const notConfigured: RegistrarEvidence = { _tag: "NotConfigured" }

  const upstream = (name: DomainName) =>
    Effect.gen(function*() {
      // The price comes from an in-process cache; only the two upstreams run concurrently (and
      // without a registrar there is nothing to run beside RDAP: no extra fibers per name).
      const price = yield* standardPrice(name)
      const [registrar, rdapAnswer] = rtr.mode === "sandbox"
        ? [notConfigured, yield* rdapEvidence(name)] as const
        : yield* Effect.all([registrarEvidence(name), rdapEvidence(name)], { concurrency: 2 })
      return combineEvidence(registrar, rdapAnswer, price)
    })

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

  /**
   * Local lookups for all names at once; returns one effect per name (same order) that completes
   * the check, asking upstream only when the cache has no fresh answer.
   */
  const prepare = (names: ReadonlyArray<DomainName>, options?: CheckOptions) =>
    Effect.gen(function*() {
      const environment = options?.environment ?? "live"
      const started = yield* Clock.currentTimeMillis
      const domains = [...new Set(names.map((n) => n.registrable))]
      const [reserved, listings, cachedRows] = yield* Effect.all([
        reservedList,
        market.listedByDomain(environment, domains),
        environment === "live" ? repo.fresh(domains) : Effect.succeed([])
      ], { concurrency: "unbounded" })
      const cache = new Map(cachedRows.map((r) => [r.domain, r]))

      return names.map((name): Effect.Effect<Availability> => {
        const hit = matchReserved(reserved, name)
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
        const listing = listings.get(name.registrable)
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
        if (environment === "sandbox") {
          return Effect.flatMap(standardPrice(name), (price) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              finish(name, sandboxOutcome(name, price), {
                cached: false,
                source: "sandbox",
                checkedAt: new Date(now),
                started
              })))
        }
        const cachedAnswer = cache.get(name.registrable)
        if (cachedAnswer !== undefined) {
          return finish(name, cachedAnswer.result, {
            cached: true,
            source: cachedAnswer.result.source,
            checkedAt: new Date(cachedAnswer.checked_at),
            started
          })
        }
        return Effect.gen(function*() {
          const outcome = yield* upstream(name)
          const now = yield* Clock.currentTimeMillis
          const ttl = outcome.complete ? ttlMs[outcome.state] : ttlMs.unknown
          if (ttl > 0) {
            yield* repo.store(name.registrable, outcome, new Date(now), ttl).pipe(
              Effect.catchAllDefect((e) =>
                Effect.logWarning("availability cache write failed", e)
              )
            )
          }
          return yield* finish(name, outcome, {
            cached: false,
            source: outcome.source,
            checkedAt: new Date(now),
            started
          })
        })
      })
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

  const check = (name: DomainName, options?: CheckOptions) =>
    Effect.flatMap(prepare([name], options), (effects) => effects[0])

  /** Parses then checks; an invalid name fails with the parse error. */
  const checkText = (input: string, options?: CheckOptions): Effect.Effect<Availability, InvalidDomainName> => {
    const parsed = parseDomainName(input)
    return Either.isLeft(parsed) ? Effect.fail(parsed.left) : check(parsed.right, options)
  }

  const addReserved = (row: ReservedRow) => Effect.zipRight(repo.upsertReserved(row), invalidateReserved)
  const removeReserved = (pattern: string) => Effect.tap(repo.removeReserved(pattern), () => invalidateReserved)

  return {
    prepare,
    check,
    checkText,
    addReserved,
    removeReserved,
    listReserved: repo.reserved,
    purgeExpired: repo.purgeExpired,
    breakerState: { registrar: registrarGuard.stateOf, rdap: rdapGuard.stateOf }
  } as const
})

export class AvailabilityEngine extends Context.Tag("app/AvailabilityEngine")<
  AvailabilityEngine,
  Effect.Effect.Success<typeof make>
>() {
  static readonly Live = Layer.effect(AvailabilityEngine, make).pipe(Layer.provide(AvailabilityRepo.Live))
}
