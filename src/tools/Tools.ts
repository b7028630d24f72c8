/**
 * The free tools: which exist, which answer inline and which run as durable jobs, their inputs'
 * business checks, a short cache for identical inline calls, and the job handlers.
 *
 * Inline: idn-convert, dns-lookup, domain-suggest, appraise → `{ok, cached, result}`.
 * Async:  site-check {url}, bulk-check {domains ≤ 500} → a `job_…` in the Jobs queue (kind
 *         `tool:<slug>`), run by `ToolWorkersLive` on any replica with workers.
 */
import { Duration, Effect, Either, Layer, Option } from "effect"
import { AvailabilityEngine } from "../availability/Availability.js"
import type { DomainName } from "../domain/DomainName.js"
import { dnsLookup, RECORD_TYPES, type RecordType } from "../lookup/DnsLookup.js"
import { LookupConfig } from "../lookup/Settings.js"
import { ListingReads } from "../market/ListingReads.js"
import { domainInput, parseDomainInputWith } from "../platform/http/DomainInput.js"
import { isId } from "../platform/Ids.js"
import { Jobs, JobsJanitorLive, type JobState, type RunningJob } from "../platform/jobs/Jobs.js"
import { Outbound } from "../platform/outbound/Outbound.js"
import { appraise } from "./Appraise.js"
import { DEFAULT_SUGGEST_TLDS, suggestNames } from "./DomainSuggest.js"
import { InvalidJobId, InvalidKeywords, InvalidUrl, ToolJobNotFound, UnknownTool } from "./Errors.js"
import { idnConvert } from "./IdnConvert.js"
import { normalizeUrl, siteCheck } from "./SiteCheck.js"

export const INLINE_TOOLS = ["idn-convert", "dns-lookup", "domain-suggest", "appraise"] as const
export const ASYNC_TOOLS = ["site-check", "bulk-check"] as const
export type AsyncTool = (typeof ASYNC_TOOLS)[number]
export const isAsyncTool = (slug: string): slug is AsyncTool => (ASYNC_TOOLS as ReadonlyArray<string>).includes(slug)
export const isTool = (slug: string) => isAsyncTool(slug) || (INLINE_TOOLS as ReadonlyArray<string>).includes(slug)

export const jobKind = (slug: AsyncTool) => `tool:${slug}`

const usd = (cents: number | null) => (cents === null ? null : cents / 100)

const make = Effect.gen(function*() {
  const lookupSettings = yield* LookupConfig
  const jobs = yield* Jobs
  const engine = yield* AvailabilityEngine
  const outbound = yield* Outbound
  const listings = yield* ListingReads
  const cacheTtlMs = Duration.toMillis(lookupSettings.toolCacheTtl)
  const cache = new Map<string, { at: number; value: unknown }>()

  /** Identical inline calls within TOOL_CACHE_TTL share one answer (per process). */
  const cached = <E>(key: string, compute: Effect.Effect<unknown, E>) =>
    Effect.gen(function*() {
      const now = Date.now()
      const hit = cache.get(key)
      if (hit && now - hit.at < cacheTtlMs) return { cached: true, result: hit.value }
      const value = yield* compute
      if (cacheTtlMs > 0) {
        if (cache.size >= 1000) {
          for (const [k, v] of cache) if (now - v.at >= cacheTtlMs || cache.size >= 1000) cache.delete(k)
        }
        cache.set(key, { at: now, value })
      }
      return { cached: false, result: value }
    })

  const checkMany = (names: ReadonlyArray<DomainName>) =>
    Effect.flatMap(engine.prepare(names), (effects) => Effect.all(effects, { concurrency: 8 }))

  const idn = (input: { domain: string }) =>
    cached(`idn-convert|${input.domain}`, Effect.sync(() => idnConvert(input.domain)))

  const dns = (input: { domain: string; types?: ReadonlyArray<RecordType> | undefined }) =>
    Effect.gen(function*() {
      const name = yield* domainInput("domain", input.domain, "field-input")
      const types = input.types && input.types.length > 0 ? [...new Set(input.types)] : [...RECORD_TYPES]
      return yield* cached(
        `dns-lookup|${name.ascii}|${types.join(",")}`,
        dnsLookup(lookupSettings.dnsResolver, name.ascii, types)
      )
    })

  const suggest = (input: { keywords: string; tlds?: ReadonlyArray<string> | undefined; limit?: number | undefined }) =>
    Effect.gen(function*() {
      const tlds = (input.tlds && input.tlds.length > 0 ? input.tlds : DEFAULT_SUGGEST_TLDS).map((t) =>
        t.toLowerCase().replace(/^\.+/, "")
      )
      const limit = input.limit ?? 10
      const names = suggestNames(input.keywords, tlds, limit)
      if (names.length === 0) {
        return yield* InvalidKeywords.of()
      }
      return yield* cached(
        `domain-suggest|${names.map((n) => n.ascii).join(",")}`,
        Effect.gen(function*() {
          const results = yield* checkMany(names)
          return {
            keywords: input.keywords,
            suggestions: results.map((a) => ({
              domain: a.domain,
              domain_unicode: a.domainUnicode,
              state: a.state,
              available: a.available,
              price: usd(a.priceCents)
            }))
          }
        })
      )
    })

  const appraiseTool = (input: { domain: string }) =>
    Effect.gen(function*() {
      const name = yield* domainInput("domain", input.domain, "field-input")
      return yield* cached(
        `appraise|${name.ascii}`,
        Effect.map(listings.comparables(name.suffix, name.label.length, name.registrable), (comparables) =>
          appraise(
            { ascii: name.registrable, label: name.label, suffix: name.suffix, knownSuffix: name.knownSuffix },
            comparables
          ))
      )
    })

  /** A job for an async tool. */
  const enqueueSiteCheck = (input: { readonly url: string }): Effect.Effect<JobState, InvalidUrl> => {
    const url = normalizeUrl(input.url)
    return url === undefined
      ? Effect.fail(InvalidUrl.of())
      : jobs.enqueue(jobKind("site-check"), { url }, { maxAttempts: 3 })
  }

  const enqueueBulkCheck = (input: { readonly domains: ReadonlyArray<string> }): Effect.Effect<JobState> =>
    jobs.enqueue(jobKind("bulk-check"), { domains: input.domains }, { maxAttempts: 3 })

  /** A job of an async tool, by the slug and id of its status URL. */
  const status = (
    slug: string,
    jobId: string
  ): Effect.Effect<JobState, UnknownTool | ToolJobNotFound | InvalidJobId> =>
    Effect.gen(function*() {
      if (!isTool(slug)) return yield* UnknownTool.of(slug)
      if (!isAsyncTool(slug)) return yield* ToolJobNotFound.inline(slug)
      if (!isId("job", jobId)) return yield* InvalidJobId.of()
      const job = yield* jobs.get(jobId)
      if (Option.isNone(job) || job.value.kind !== jobKind(slug)) return yield* ToolJobNotFound.of(slug, jobId)
      return job.value
    })

  /** Job handlers, run by the workers. */
  const runSiteCheck = (job: RunningJob<{ url: string }>) => siteCheck(outbound, job.input.url)

  const runBulkCheck = (job: RunningJob<{ domains: ReadonlyArray<string> }>) =>
    Effect.gen(function*() {
      const total = job.input.domains.length
      const items: Array<Record<string, unknown>> = []
      yield* job.progress({ checked: 0, total })
      for (let i = 0; i < total; i += 25) {
        const chunk = job.input.domains.slice(i, i + 25)
        const parsed = chunk.map((d) => ({ input: d, parsed: parseDomainInputWith(d, (e) => e.message) }))
        const valid = parsed.flatMap((p) => (Either.isRight(p.parsed) ? [p.parsed.right] : []))
        const results = yield* checkMany(valid)
        let k = 0
        for (const p of parsed) {
          if (Either.isLeft(p.parsed)) {
            items.push({
              domain: p.input,
              state: "invalid",
              available: null,
              price: null,
              error: p.parsed.left
            })
          } else {
            const a = results[k++]
            items.push({
              domain: a.domain,
              state: a.state,
              available: a.available,
              price: usd(a.priceCents),
              error: null
            })
          }
        }
        yield* job.progress({ checked: items.length, total })
      }
      const count = (state: string) => items.filter((x) => x.state === state).length
      return { total, checked: items.length, available: count("available"), registered: count("registered"), items }
    })

  return {
    idn,
    dns,
    suggest,
    appraise: appraiseTool,
    enqueueSiteCheck,
    enqueueBulkCheck,
    status,
    runSiteCheck,
    runBulkCheck
  }
})

/** Comparables come from market's `ListingReads` (market owns `listings`), provided by src/app/Layers.ts. */
export class Tools extends Effect.Service<Tools>()("app/Tools", { effect: make }) {
  /** Kept for the existing wiring (src/tools/Layer.ts). */
  static readonly Live = Tools.Default
}

/** Worker fibers of the async tools (JOB_CONCURRENCY each), and the finished-job janitor. */
export const ToolWorkersLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const tools = yield* Tools
    const jobs = yield* Jobs
    const lookupSettings = yield* LookupConfig
    const concurrency = lookupSettings.jobConcurrency
    yield* jobs.work(jobKind("site-check"), tools.runSiteCheck, { concurrency })
    yield* jobs.work(jobKind("bulk-check"), tools.runBulkCheck, { concurrency })
  })
).pipe(Layer.merge(JobsJanitorLive))
