/**
 * How the RDAP client reaches a server: one GET over node:http(s) with keep-alive agents, bounded
 * by RDAP_TIMEOUT and aborted by interruption; redirects followed by hand (at most
 * RDAP_MAX_REDIRECTS), one bounded wait on 429, and a server that timed out, was unreachable or
 * rate limited skipped for a while so a machine without network answers at once.
 *
 * Domain queries go through node:http(s) rather than Effect's HttpClient: one async step per
 * request instead of a scope, a context copy, a race of two fibers for the time limit and a stream
 * per response. Measured in the search benchmark (10 lookups per search): see
 * bench/results/search.md. The bootstrap fetch (once a day, RdapBootstrap.ts) keeps the HttpClient.
 */
import { Duration, Effect, FiberRef, type Tracer } from "effect"
import * as Http from "node:http"
import * as Https from "node:https"
import { systemCodeOf } from "../platform/outbound/UpstreamFault.js"
import { RdapError } from "./RdapError.js"
import type { LookupSettings } from "./Settings.js"

const ACCEPT = "application/rdap+json, application/json"
const SKIP_AFTER_FAILURE_MS = 30_000

export const retryAfterSeconds = (value: string | undefined, now = Date.now()): number | undefined => {
  if (value === undefined) return undefined
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v)
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}

export interface RawAnswer {
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
export const withSpanWhenTracing = <A, E>(
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

export const parseUrl = (url: string): URL | undefined => {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

type Agents = { readonly "http:": Http.Agent; readonly "https:": Https.Agent }

/** A response read to its end (a redirect's body dropped), or a transport failure. */
const readResponse = (
  url: string,
  response: Http.IncomingMessage,
  settle: (effect: Effect.Effect<RawAnswer, RdapError>) => void
) => {
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
}

/** One GET without following redirects, bounded by RDAP_TIMEOUT; interruption aborts it. */
const getOnce = (agents: Agents, timeoutMs: number, url: string): Effect.Effect<RawAnswer, RdapError> =>
  traced(
    url,
    Effect.async<RawAnswer, RdapError>((resume) => {
      const target = parseUrl(url)
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
      }, (response) => readResponse(url, response, settle))
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

/** Where a redirect leads, or why it is not followed. */
const redirectTarget = (answer: RawAnswer, url: string) =>
  Effect.gen(function*() {
    const next = yield* Effect.try({
      try: () => new URL(answer.location!, url),
      catch: () => new RdapError({ reason: "upstream", message: "redirect with an invalid Location", url })
    })
    if (next.protocol !== "https:" && next.protocol !== "http:") {
      return yield* new RdapError({ reason: "upstream", message: "redirect to a non-HTTP URL", url })
    }
    return next.toString()
  })

/**
 * The GET of RDAP queries, with its agents (closed with the scope) and its memory of skipped
 * servers (base URL → until, ms): redirects followed by hand and one bounded wait on 429.
 */
export const makeFetchRdap = (settings: LookupSettings) =>
  Effect.gen(function*() {
    const timeoutMs = Duration.toMillis(settings.rdapTimeout)
    const capSeconds = Duration.toSeconds(settings.rdapRetryAfterCap)
    const agents = { "http:": new Http.Agent({ keepAlive: true }), "https:": new Https.Agent({ keepAlive: true }) }
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        agents["http:"].destroy()
        agents["https:"].destroy()
      })
    )
    const skipped = new Map<string, { until: number; reason: string }>()
    const skip = (key: string, ms: number, reason: string) => skipped.set(key, { until: Date.now() + ms, reason })

    return (start: string, skipKey: string): Effect.Effect<RawAnswer, RdapError> =>
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
          const answer = yield* getOnce(agents, timeoutMs, url).pipe(
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
            url = yield* redirectTarget(answer, url)
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
  })
