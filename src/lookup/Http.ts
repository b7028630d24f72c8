/** Handler of POST /api/tools/whois: validation, quota, idempotency, then `Lookups.lookup`. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either } from "effect"
import { Api } from "../app/Api.js"
import { parseDomainName } from "../domain/DomainName.js"
import { CurrentViewer } from "../identity/Viewer.js"
import { clientIpOf } from "../platform/ClientIp.js"
import { AppConfig } from "../platform/Config.js"
import { BadRequestError, NotFoundError, RateLimitedError } from "../platform/Errors.js"
import { fingerprint, Idempotency, isValidKey } from "../platform/Idempotency.js"
import { makePeek, type RateLimitDecision, RateLimiter, rateLimitHeaders } from "../platform/RateLimit.js"
import { addResponseHeaders } from "../platform/ResponseHeaders.js"
import { limits, WhoisResponse } from "./Api.js"
import { Lookups } from "./Lookups.js"

const headersOf = (d: RateLimitDecision): Record<string, string> =>
  d.allowed ? rateLimitHeaders(d) : { ...rateLimitHeaders(d), "retry-after": String(d.resetSeconds) }

export const LookupHttpLive = HttpApiBuilder.group(Api, "lookup", (handlers) =>
  Effect.gen(function*() {
    const lookups = yield* Lookups
    const whoisKeys = (yield* Idempotency).endpoint({ success: WhoisResponse, status: 201 })
    const limiter = yield* RateLimiter
    const config = yield* AppConfig
    const peek = yield* makePeek

    return handlers.handle("whois", ({ payload, request }) =>
      Effect.gen(function*() {
        const viewer = yield* CurrentViewer
        const key = request.headers["idempotency-key"]
        if (key !== undefined && !isValidKey(key)) {
          return yield* new BadRequestError({
            code: "invalid_idempotency_key",
            message: "Idempotency-Key: 1-255 visible ASCII characters"
          })
        }
        const parsed = parseDomainName(payload.domain)
        if (Either.isLeft(parsed)) {
          return yield* new BadRequestError({
            code: "invalid_domain",
            message: `"${payload.domain.slice(0, 300)}" is not a valid domain name: ${parsed.left.message}`,
            details: { field: "domain", problem: parsed.left.problem }
          })
        }
        const domain = parsed.right.ascii
        const quota = viewer._tag === "User"
          ? { policy: { ...limits.whoisBearer, limit: config.lookup.bearerWhoisCap }, key: `user:${viewer.userId}` }
          : { policy: limits.whois, key: clientIpOf(request, config.trustProxy) }

        let decision: RateLimitDecision | undefined
        const extra: Record<string, string> = key === undefined ? {} : { "idempotency-key": key }
        // Headers for every answer once the quota was looked at: errors included.
        yield* HttpApp.appendPreResponseHandler((_req, response) =>
          Effect.succeed(
            decision === undefined
              ? HttpServerResponse.setHeaders(response, extra)
              : HttpServerResponse.setHeaders(response, { ...headersOf(decision), ...extra })
          )
        )

        const work = Effect.gen(function*() {
          const d = yield* limiter.consume(quota.policy, quota.key)
          decision = d
          if (!d.allowed) {
            return yield* new RateLimitedError({
              code: "rate_limited",
              message: `Daily WHOIS quota of ${d.limit} lookups spent; retry in ${d.resetSeconds}s`,
              details: { limit: d.limit, window_seconds: d.windowSeconds, retry_after: d.resetSeconds }
            })
          }
          const outcome = yield* lookups.lookup(domain)
          if (outcome._tag === "NoData") {
            return yield* new NotFoundError(
              outcome.notRegistered
                ? {
                  code: "whois_not_found",
                  message: `No registration data for ${domain}: the registry has no such domain`
                }
                : {
                  code: "whois_unavailable",
                  message:
                    `WHOIS data for ${domain} is unavailable right now (RDAP ${outcome.rdap}; WHOIS ${outcome.whois})`
                }
            )
          }
          return { lookup: outcome.lookup, used: d.limit - d.remaining, cap: d.limit, remaining: d.remaining }
        })

        if (key === undefined) return yield* work
        const result = yield* whoisKeys.run({
          scope: `whois:${quota.key}`,
          key,
          fingerprint: fingerprint("whois", domain)
        }, work)
        if (result.replayed) decision = yield* peek(quota.policy, quota.key)
        // This endpoint also says when an answer is not a replay (docs/lookup.md).
        else yield* addResponseHeaders({ "idempotent-replayed": "false" })
        return result.value
      }))
  }))
