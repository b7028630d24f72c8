/**
 * RDAP client (RFC 9082/9083/9224): registration data of a domain, from the registry's RDAP
 * server found through the IANA bootstrap file, with the registrar's answer merged in when the
 * registry's is thin.
 *
 * API (stable; the availability engine and the WHOIS tool call it):
 *
 *   RdapClient.lookupDomain(asciiDomain: string, options?: { followRelated?: boolean })
 *     : Effect<RdapFound | RdapNotFound, RdapError>
 *
 *   - `{ _tag: "Found", domain, record, statuses, url, registrarUrl }`: the registry has the name;
 *     `record` is the `lookup.result` shape (raw_source "RDAP"), `statuses` the RDAP statuses.
 *   - `{ _tag: "NotFound", domain, url }`: the registry's RDAP server answered 404 for the name.
 *   - `RdapError` for everything else — no RDAP server for the TLD (`unsupported_tld`), timeout,
 *     unreachable server, 429 beyond the cap, other HTTP statuses, a body that is not a domain
 *     object, too many redirects, sandbox mode (`unavailable`). Callers must treat an error as
 *     "unknown", never as "available".
 *
 *   RdapClient.serverFor(asciiDomain): Effect<Option<string>>   the base URL the name maps to
 *   RdapClient.refreshBootstrap: Effect<BootstrapInfo, RdapError> re-fetch RDAP_BOOTSTRAP_URL now
 *   RdapClient.mode: "live" | "sandbox"
 *
 * Behaviour (live):
 * - Bootstrap: the bundled IANA snapshot (`data/rdap-dns.json`) until `RDAP_BOOTSTRAP_URL` has
 *   been fetched; the first lookup of a process waits (bounded) for that fetch, later refreshes
 *   happen in the background once the table is older than `RDAP_BOOTSTRAP_REFRESH`. A failed
 *   fetch keeps the current table and is retried after at most 5 minutes. An empty URL means the
 *   snapshot only.
 * - Longest-suffix match over the name's labels; https base URLs preferred.
 * - `Accept: application/rdap+json, application/json`; redirects followed by hand, at most
 *   `RDAP_MAX_REDIRECTS`; each request bounded by `RDAP_TIMEOUT`.
 * - 404 → NotFound. 429 → waits out `Retry-After` once when within `RDAP_RETRY_AFTER_CAP`, else
 *   `rate_limited` with `retryAfter`, and the server is skipped until then.
 * - A server that timed out or was unreachable is skipped (fast `unreachable` error) for 30 s, so
 *   a machine without network answers quickly instead of hanging on every name.
 * - Registrar referral: when the registry answer has no registrant, the
 *   `related` link is followed (same rules) and its data fills the gaps; its failure is ignored.
 *
 * Sandbox (`RDAP_MODE=sandbox`): no network at all; every lookup fails at once with
 * `unavailable` (the WHOIS tool then falls back to port 43, the availability engine says
 * "unknown").
 */
import type { HttpClientError } from "@effect/platform"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Context, Data, Duration, Effect, FiberRef, Layer, Option, type Tracer } from "effect"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Https from "node:https"
import { describeHttpFailure, systemCodeOf } from "../platform/outbound/UpstreamFault.js"
import {
  type Bootstrap,
  domainQueryUrl,
  isDomainObject,
  mapDomainObject,
  matchBootstrap,
  parseBootstrap,
  relatedLink
} from "./RdapMapping.js"
import { isThin, type LookupRecord, mergeRecords } from "./Record.js"
import { LookupConfig, type LookupSettings } from "./Settings.js"

export class RdapError extends Data.TaggedError("RdapError")<{
  readonly reason:
    | "unsupported_tld"
    | "unavailable"
    | "timeout"
    | "rate_limited"
    | "unreachable"
    | "upstream"
    | "decode"
    | "too_many_redirects"
  readonly message: string
  readonly url?: string
  readonly status?: number
  /** Seconds, from Retry-After on a 429. */
  readonly retryAfter?: number
}> {}

export interface RdapFound {
  readonly _tag: "Found"
  /** A-label, as the registry spells it (lowercase). */
  readonly domain: string
  readonly record: LookupRecord
  /** RDAP statuses (RFC 8056 vocabulary), also joined in `record.status`. */
  readonly statuses: ReadonlyArray<string>
  /** The URL that answered for the registry. */
  readonly url: string
  /** The registrar's RDAP URL when its answer was merged in. */
  readonly registrarUrl: string | undefined
}

export interface RdapNotFound {
  readonly _tag: "NotFound"
  readonly domain: string
  readonly url: string
}

export type RdapLookup = RdapFound | RdapNotFound

export interface BootstrapInfo {
  readonly source: "bundled" | "remote"
  readonly publication: string
  readonly entries: number
}

export interface RdapClientShape {
  readonly mode: "live" | "sandbox"
  readonly lookupDomain: (
    asciiDomain: string,
    options?: { readonly followRelated?: boolean }
  ) => Effect.Effect<RdapLookup, RdapError>
  readonly serverFor: (asciiDomain: string) => Effect.Effect<Option.Option<string>>
  readonly refreshBootstrap: Effect.Effect<BootstrapInfo, RdapError>
}

export class RdapClient extends Context.Tag("app/RdapClient")<RdapClient, RdapClientShape>() {}

const ACCEPT = "application/rdap+json, application/json"
const SKIP_AFTER_FAILURE_MS = 30_000
const BOOTSTRAP_RETRY_MS = 5 * 60_000

/** The bundled IANA snapshot. */
export const bundledBootstrap: Bootstrap = parseBootstrap(
  JSON.parse(Fs.readFileSync(new URL("./data/rdap-dns.json", import.meta.url), "utf8"))
)

export const retryAfterSeconds = (value: string | undefined, now = Date.now()): number | undefined => {
  if (value === undefined) return undefined
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v)
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}

interface RawAnswer {
  readonly status: number
  readonly url: string
  readonly location: string | undefined
  readonly retryAfter: string | undefined
  readonly body: string
}

/**
 * `Effect.withSpan` only when tracing is on. Off, even a no-op span costs a copy of the fiber's
 * whole context (every service of the app) per call, and this is the hot path of a search.
 */
const withSpanWhenTracing = <A, E>(
  effect: Effect.Effect<A, E>,
  name: string,
  options: () => Tracer.SpanOptions
): Effect.Effect<A, E> =>
  Effect.withFiberRuntime((fiber) =>
    fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withSpan(effect, name, options()) : effect
  )

/**
 * With tracing on, a client span per RDAP request, named and described as Effect's HttpClient
 * names its spans (`http.client GET`, OpenTelemetry's HTTP attributes), so every upstream call
 * reads the same in a trace. The upstream itself never receives trace context.
 */
const traced = <A, E>(url: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  withSpanWhenTracing(effect, "http.client GET", () => {
    const parsed = parseUrl(url)
    return {
      kind: "client",
      captureStackTrace: false,
      attributes: {
        "http.request.method": "GET",
        "server.address": parsed?.hostname ?? "invalid",
        "url.full": url,
        "url.path": parsed?.pathname ?? ""
      }
    }
  })

const parseUrl = (url: string): URL | undefined => {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

export const makeLive = (settings: LookupSettings) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const timeoutMs = Duration.toMillis(settings.rdapTimeout)
    const capSeconds = Duration.toSeconds(settings.rdapRetryAfterCap)
    const refreshMs = Duration.toMillis(settings.rdapBootstrapRefresh)

    // --- bootstrap state (per process) ---
    let table: Bootstrap = bundledBootstrap
    let source: "bundled" | "remote" = "bundled"
    let fetchedAt = 0
    let attempted = settings.rdapBootstrapUrl === ""
    let nextAttemptAt = 0
    let refreshing = false
    const firstFetch = yield* Effect.makeSemaphore(1)

    const info = (): BootstrapInfo => ({ source, publication: table.publication, entries: table.servers.size })

    const refreshBootstrap: Effect.Effect<BootstrapInfo, RdapError> = Effect.gen(function*() {
      const url = settings.rdapBootstrapUrl
      if (url === "") return info()
      const fail = (message: string) => new RdapError({ reason: "upstream", message, url })
      const response = yield* client.execute(HttpClientRequest.get(url).pipe(HttpClientRequest.acceptJson)).pipe(
        Effect.flatMap((r): Effect.Effect<unknown, RdapError | HttpClientError.ResponseError> =>
          r.status === 200 ? r.json : Effect.fail(fail(`bootstrap answered HTTP ${r.status}`))
        ),
        Effect.scoped,
        Effect.timeoutFail({
          duration: Duration.millis(Math.min(timeoutMs, 5_000)),
          onTimeout: () => new RdapError({ reason: "timeout", message: "bootstrap fetch timed out", url })
        }),
        Effect.catchTags({
          RequestError: (e) =>
            Effect.fail(
              new RdapError({ reason: "unreachable", message: `bootstrap unreachable: ${describeHttpFailure(e)}`, url })
            ),
          ResponseError: (e) => Effect.fail(fail(`bootstrap: ${describeHttpFailure(e)}`))
        })
      )
      const parsed = yield* Effect.try({
        try: () => parseBootstrap(response),
        catch: (e) => new RdapError({ reason: "decode", message: `bootstrap: ${(e as Error).message}`, url })
      })
      table = parsed
      source = "remote"
      fetchedAt = Date.now()
      return info()
    }).pipe(
      Effect.tapError((e) =>
        Effect.sync(() => {
          nextAttemptAt = Date.now() + Math.min(refreshMs || BOOTSTRAP_RETRY_MS, BOOTSTRAP_RETRY_MS)
        }).pipe(Effect.zipRight(
          Effect.logWarning("RDAP bootstrap refresh failed; keeping the current table").pipe(
            Effect.annotateLogs({ reason: e.reason, error: e.message })
          )
        ))
      )
    )

    const ensureBootstrap = Effect.suspend(() => {
      if (!attempted) {
        return firstFetch.withPermits(1)(
          Effect.suspend(
            () => (attempted ? Effect.void : refreshBootstrap.pipe(
              Effect.ignore,
              Effect.ensuring(Effect.sync(() => {
                attempted = true
              }))
            ))
          )
        )
      }
      const now = Date.now()
      if (
        refreshMs > 0 && !refreshing && now - fetchedAt >= refreshMs && now >= nextAttemptAt &&
        settings.rdapBootstrapUrl !== ""
      ) {
        refreshing = true
        return Effect.forkDaemon(refreshBootstrap.pipe(
          Effect.ignore,
          Effect.ensuring(Effect.sync(() => {
            refreshing = false
          }))
        )).pipe(Effect.asVoid)
      }
      return Effect.void
    })

    // --- servers skipped after a failure: base URL → until (ms) ---
    const skipped = new Map<string, { until: number; reason: string }>()
    const skip = (key: string, ms: number, reason: string) => skipped.set(key, { until: Date.now() + ms, reason })

    // Domain queries go through node:http(s) with keep-alive agents rather than Effect's
    // HttpClient: one async step per request instead of a scope, a context copy, a race of two
    // fibers for the time limit and a stream per response. Measured in the search benchmark
    // (10 lookups per search): see bench/results/search.md. The bootstrap fetch (once a day)
    // keeps the HttpClient.
    const agents = { "http:": new Http.Agent({ keepAlive: true }), "https:": new Https.Agent({ keepAlive: true }) }
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        agents["http:"].destroy()
        agents["https:"].destroy()
      })
    )

    /** One GET without following redirects, bounded by RDAP_TIMEOUT; interruption aborts it. */
    const getOnce = (url: string): Effect.Effect<RawAnswer, RdapError> =>
      traced(
        url,
        Effect.async<RawAnswer, RdapError>((resume) => {
          let target: URL | undefined
          try {
            target = new URL(url)
          } catch {
            // handled below
          }
          if (target === undefined || (target.protocol !== "http:" && target.protocol !== "https:")) {
            resume(
              Effect.fail(
                new RdapError({ reason: "unreachable", message: "RDAP server unreachable: invalid URL", url })
              )
            )
            return
          }
          let settled = false
          const settle = (effect: Effect.Effect<RawAnswer, RdapError>) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resume(effect)
          }
          const request = (target.protocol === "https:" ? Https : Http).request(target, {
            method: "GET",
            headers: { accept: ACCEPT },
            agent: agents[target.protocol]
          }, (response) => {
            const status = response.statusCode ?? 0
            const header = (name: string) => {
              const v = response.headers[name]
              return Array.isArray(v) ? v.join(", ") : v
            }
            const answer = (body: string): RawAnswer => ({
              status,
              url,
              location: header("location"),
              retryAfter: header("retry-after"),
              body
            })
            if (status >= 300 && status < 400) {
              response.resume()
              return settle(Effect.succeed(answer("")))
            }
            let body = ""
            response.setEncoding("utf8")
            response.on("data", (chunk: string) => {
              body += chunk
            })
            response.on("end", () => settle(Effect.succeed(answer(body))))
            response.on("error", () =>
              settle(
                Effect.fail(
                  new RdapError({ reason: "upstream", message: `RDAP: undecodable response (HTTP ${status})`, url })
                )
              ))
          })
          request.on("error", (e) => {
            const code = systemCodeOf(e)
            settle(
              Effect.fail(
                new RdapError({
                  reason: "unreachable",
                  message: `RDAP server unreachable: transport error${code === undefined ? "" : ` (${code})`}`,
                  url
                })
              )
            )
          })
          const timer = setTimeout(() => {
            settle(
              Effect.fail(
                new RdapError({ reason: "timeout", message: `RDAP server did not answer within ${timeoutMs} ms`, url })
              )
            )
            request.destroy()
          }, timeoutMs)
          request.end()
          return Effect.sync(() => {
            settled = true
            clearTimeout(timer)
            request.destroy()
          })
        })
      )

    /** GET with redirects followed by hand and one bounded wait on 429. */
    const fetchRdap = (start: string, skipKey: string): Effect.Effect<RawAnswer, RdapError> =>
      Effect.gen(function*() {
        const blocked = skipped.get(skipKey)
        if (blocked && blocked.until > Date.now()) {
          return yield* new RdapError({
            reason: "unreachable",
            message: `RDAP server skipped for ${
              Math.ceil((blocked.until - Date.now()) / 1000)
            } s after: ${blocked.reason}`,
            url: start
          })
        }
        let url = start
        let waited = false
        for (let hop = 0;; hop++) {
          const answer = yield* getOnce(url).pipe(
            Effect.tapError((e) =>
              Effect.sync(() => {
                // Remembered for other callers: the message names no URL (see UpstreamFault).
                if (e.reason === "timeout" || e.reason === "unreachable") {
                  skip(skipKey, SKIP_AFTER_FAILURE_MS, e.message)
                }
              })
            )
          )
          if (answer.status >= 300 && answer.status < 400 && answer.location) {
            if (hop >= settings.rdapMaxRedirects) {
              return yield* new RdapError({
                reason: "too_many_redirects",
                message: `more than ${settings.rdapMaxRedirects} redirects`,
                url: start
              })
            }
            const next = yield* Effect.try({
              try: () => new URL(answer.location!, url),
              catch: () => new RdapError({ reason: "upstream", message: "redirect with an invalid Location", url })
            })
            if (next.protocol !== "https:" && next.protocol !== "http:") {
              return yield* new RdapError({ reason: "upstream", message: "redirect to a non-HTTP URL", url })
            }
            url = next.toString()
            continue
          }
          if (answer.status === 429) {
            const retryAfter = retryAfterSeconds(answer.retryAfter)
            if (!waited && retryAfter !== undefined && retryAfter <= capSeconds) {
              waited = true
              yield* Effect.sleep(Duration.seconds(retryAfter))
              hop--
              continue
            }
            if (retryAfter !== undefined) skip(skipKey, retryAfter * 1000, "rate limited (429)")
            return yield* new RdapError({
              reason: "rate_limited",
              message: retryAfter !== undefined
                ? `RDAP server rate limited; retry after ${retryAfter} s`
                : "RDAP server rate limited",
              url,
              status: 429,
              ...(retryAfter !== undefined ? { retryAfter } : {})
            })
          }
          return answer
        }
      })

    const decodeDomain = (answer: RawAnswer): Effect.Effect<unknown, RdapError> =>
      Effect.try({
        try: () => JSON.parse(answer.body) as unknown,
        catch: () =>
          new RdapError({
            reason: "decode",
            message: "RDAP answer is not JSON",
            url: answer.url,
            status: answer.status
          })
      }).pipe(
        Effect.filterOrFail(
          isDomainObject,
          () =>
            new RdapError({
              reason: "decode",
              message: "RDAP answer is not a domain object",
              url: answer.url,
              status: answer.status
            })
        )
      )

    const lookupDomain: RdapClientShape["lookupDomain"] = (asciiDomain, options) =>
      Effect.gen(function*() {
        const domain = asciiDomain.toLowerCase().replace(/\.$/, "")
        yield* ensureBootstrap
        const bases = matchBootstrap(table, domain)
        if (!bases) {
          return yield* new RdapError({
            reason: "unsupported_tld",
            message: `no RDAP server is registered for ${domain}`
          })
        }
        const base = bases[0]
        const answer = yield* fetchRdap(domainQueryUrl(base, domain), base)
        if (answer.status === 404) return { _tag: "NotFound", domain, url: answer.url } satisfies RdapNotFound
        if (answer.status !== 200) {
          return yield* new RdapError({
            reason: "upstream",
            message: `RDAP server answered HTTP ${answer.status}`,
            url: answer.url,
            status: answer.status
          })
        }
        const obj = yield* decodeDomain(answer)
        const mapped = mapDomainObject(domain, obj)
        let record = mapped.record
        let registrarUrl: string | undefined
        const related = options?.followRelated === false ? undefined : relatedLink(obj, answer.url)
        if (related && isThin(record)) {
          const origin = (() => {
            try {
              return new URL(related).origin
            } catch {
              return related
            }
          })()
          const registrar = yield* fetchRdap(related, origin).pipe(
            Effect.flatMap((a) => (a.status === 200
              ? decodeDomain(a)
              : Effect.fail(new RdapError({ reason: "upstream", message: `HTTP ${a.status}`, url: a.url })))
            ),
            Effect.option
          )
          if (Option.isSome(registrar)) {
            record = mergeRecords(record, mapDomainObject(domain, registrar.value).record)
            registrarUrl = related
          }
        }
        return {
          _tag: "Found",
          domain: record.domain,
          record,
          statuses: mapped.statuses,
          url: answer.url,
          registrarUrl
        } satisfies RdapFound
      }).pipe((effect) =>
        withSpanWhenTracing(effect, "rdap.lookupDomain", () => ({ attributes: { domain: asciiDomain } }))
      )

    const serverFor = (asciiDomain: string) =>
      ensureBootstrap.pipe(Effect.map(() => Option.fromNullable(matchBootstrap(table, asciiDomain.toLowerCase())?.[0])))

    return { mode: "live", lookupDomain, serverFor, refreshBootstrap } satisfies RdapClientShape
  })

/** No network: every lookup fails at once with `unavailable`. */
export const sandbox: RdapClientShape = {
  mode: "sandbox",
  lookupDomain: (asciiDomain) =>
    Effect.fail(
      new RdapError({
        reason: "unavailable",
        message: `RDAP lookups are disabled (RDAP_MODE=sandbox); ${asciiDomain} not looked up`
      })
    ),
  serverFor: (asciiDomain) =>
    Effect.succeed(Option.fromNullable(matchBootstrap(bundledBootstrap, asciiDomain.toLowerCase())?.[0])),
  refreshBootstrap: Effect.succeed({
    source: "bundled",
    publication: bundledBootstrap.publication,
    entries: bundledBootstrap.servers.size
  })
}

export const RdapClientLive = Layer.scoped(
  RdapClient,
  Effect.gen(function*() {
    const settings = yield* LookupConfig
    return settings.rdapMode === "sandbox" ? sandbox : yield* makeLive(settings)
  })
)
