/**
 * The sign-in rate limits, shared by POST /api/auth/login and the sign-in form of the OAuth
 * authorization page: per client IP, then per account (e-mail), whichever IPs it comes from.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { clientIpOf } from "../../platform/http/ClientIp.js"
import { RateLimitedError } from "../../platform/http/Errors.js"
import { RateLimiter, rateLimitHeaders } from "../../platform/http/RateLimit.js"
import { normalizeEmail } from "./Accounts.js"
import { loginLimits } from "./Api.js"

/**
 * Counts a sign-in attempt against the per-IP and then the per-account limit; 429 when over
 * either. The RateLimit headers describe whichever limit is closer to running out.
 */
export const limitLogin = (email: string) =>
  Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const config = yield* AppConfig
    const request = yield* HttpServerRequest.HttpServerRequest
    const byIp = yield* limiter.consume(loginLimits.ip, clientIpOf(request, config.trustProxy))
    const byAccount = byIp.allowed ? yield* limiter.consume(loginLimits.account, normalizeEmail(email)) : byIp
    const denied = !byIp.allowed ? byIp : !byAccount.allowed ? byAccount : undefined
    const shown = denied ?? (byAccount.remaining < byIp.remaining ? byAccount : byIp)
    const headers = denied
      ? { ...rateLimitHeaders(shown), "retry-after": String(shown.resetSeconds) }
      : rateLimitHeaders(shown)
    yield* HttpApp.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeaders(res, headers)))
    if (denied) {
      return yield* new RateLimitedError({
        code: "rate_limited",
        message: `Too many sign-in attempts; retry in ${denied.resetSeconds}s`,
        details: { limit: denied.limit, window_seconds: denied.windowSeconds, retry_after: denied.resetSeconds }
      })
    }
  })
