/**
 * Whether a domain can be brokered, with every reason it cannot: `invalid_domain`, `reserved`
 * (the reserved/blocked list of the availability engine), `already_in_case` (an open case of any
 * partner in the environment), `live_site` (SiteProbe.ts, through the SSRF-safe client).
 *
 * The contract: the live-site finding, the only costly part, is reused per domain for
 * BROKERAGE_ELIGIBILITY_TTL (per process); the other reasons are read fresh every time.
 */
import { Clock, type Context, Effect, Either, Option } from "effect"
import type { Duration } from "effect"
import type { AvailabilityEngine } from "../../availability/Availability.js"
import { reservedPatternsFor } from "../../domain/Availability.js"
import { parseDomainInputWith } from "../../platform/http/DomainInput.js"
import type { PartnerEnvironment } from "../Auth.js"
import type { BrokerageRepo } from "./Repo.js"
import { type probeOutbound, probeSite, type SiteFinding } from "./SiteProbe.js"

export const ELIGIBILITY_REASONS = ["invalid_domain", "reserved", "already_in_case", "live_site"] as const
export type EligibilityReason = typeof ELIGIBILITY_REASONS[number]

export interface Eligibility {
  readonly domain: string
  readonly eligible: boolean
  readonly reasons: ReadonlyArray<EligibilityReason>
  readonly details: ReadonlyArray<{ readonly reason: EligibilityReason; readonly message: string }>
  readonly site: {
    readonly classification: SiteFinding["classification"]
    readonly url: string
    readonly status: number | null
  } | null
  readonly checked_at: string
}

/** What the check reads: open cases, the reserved list, the site probe and its cache. */
export interface EligibilityDeps {
  readonly repo: Context.Tag.Service<typeof BrokerageRepo>
  readonly engine: Context.Tag.Service<typeof AvailabilityEngine>
  readonly outbound: ReturnType<typeof probeOutbound>
  readonly siteTimeout: Duration.Duration
  readonly ttlMs: number
  readonly siteCache: Map<string, { at: number; finding: SiteFinding }>
}

/** The live-site finding of a domain, reused for BROKERAGE_ELIGIBILITY_TTL (per process). */
const site = (d: EligibilityDeps, domain: string) =>
  Effect.gen(function*() {
    const now = Date.now()
    const hit = d.siteCache.get(domain)
    if (hit && now - hit.at < d.ttlMs) return hit.finding
    const finding = yield* probeSite(d.outbound, domain, d.siteTimeout)
    if (d.ttlMs > 0) {
      if (d.siteCache.size >= 1000) {
        for (const [k, v] of d.siteCache) if (now - v.at >= d.ttlMs || d.siteCache.size >= 1000) d.siteCache.delete(k)
      }
      d.siteCache.set(domain, { at: now, finding })
    }
    return finding
  })

const reservedHit = (
  d: EligibilityDeps,
  name: { registrable: string; label: string; suffix: string },
  environment: PartnerEnvironment
) =>
  Effect.gen(function*() {
    if (environment === "sandbox" && name.label.includes("reserved")) {
      return Option.some("sandbox: synthetic reserved name")
    }
    const list = yield* d.engine.listReserved.pipe(Effect.orDie)
    const patterns = new Set(reservedPatternsFor(name.registrable, name.label, name.suffix))
    const row = list.find((r) => patterns.has(r.pattern))
    return row ? Option.some(`${row.kind}: ${row.reason}`) : Option.none<string>()
  })

export const eligibility = (
  d: EligibilityDeps,
  input: string,
  environment: PartnerEnvironment
): Effect.Effect<Eligibility> =>
  Effect.gen(function*() {
    const checkedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    const details: Array<{ reason: EligibilityReason; message: string }> = []
    const parsed = parseDomainInputWith(input.trim(), (e) => e.message)
    if (Either.isLeft(parsed)) {
      return {
        domain: input.trim().toLowerCase().slice(0, 253),
        eligible: false,
        reasons: ["invalid_domain"],
        details: [{ reason: "invalid_domain", message: parsed.left }],
        site: null,
        checked_at: checkedAt
      } satisfies Eligibility
    }
    const name = parsed.right
    if (name.subdomain !== "") {
      details.push({
        reason: "invalid_domain",
        message: `${name.ascii} is not a registrable name (try ${name.registrable})`
      })
    } else if (!name.knownSuffix) {
      details.push({ reason: "invalid_domain", message: `.${name.suffix} is not a known top-level domain` })
    }
    const reserved = yield* reservedHit(d, name, environment)
    if (Option.isSome(reserved)) details.push({ reason: "reserved", message: reserved.value })
    const open = yield* d.repo.openCase(environment, name.ascii)
    if (Option.isSome(open)) {
      details.push({ reason: "already_in_case", message: `${name.ascii} is already in an open brokerage case` })
    }
    // No probe for names that cannot be brokered anyway.
    const finding = details.some((d) => d.reason === "invalid_domain" || d.reason === "reserved")
      ? null
      : yield* site(d, name.ascii)
    if (finding?.classification === "live") {
      details.push({
        reason: "live_site",
        message: `${name.ascii} serves an active site (${finding.url}, HTTP ${finding.status})`
      })
    }
    const reasons = ELIGIBILITY_REASONS.filter((r) => details.some((d) => d.reason === r))
    return {
      domain: name.ascii,
      eligible: reasons.length === 0,
      reasons,
      details: reasons.map((r) => details.find((d) => d.reason === r)!),
      site: finding ? { classification: finding.classification, url: finding.url, status: finding.status } : null,
      checked_at: checkedAt
    } satisfies Eligibility
  })
