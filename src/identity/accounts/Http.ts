/** Handlers of the sign-in endpoints. */
import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Api } from "../../app/Api.js"
import { AppConfig } from "../../platform/Config.js"
import { RateLimitedError, UnauthorizedError } from "../../platform/Errors.js"
import { clientIpOf } from "../../platform/HttpMiddleware.js"
import { RateLimiter, rateLimitHeaders } from "../../platform/RateLimit.js"
import { clearSessionCookie, CurrentUser, isSameOriginWrite, originRefused, sessionTokenOf, setSessionCookie } from "../Session.js"
import { Accounts, normalizeEmail } from "./Accounts.js"
import { loginLimits, Me, SignedIn } from "./Api.js"

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
    const headers = denied ? { ...rateLimitHeaders(shown), "retry-after": String(shown.resetSeconds) } : rateLimitHeaders(shown)
    yield* HttpApp.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeaders(res, headers)))
    if (denied) {
      return yield* new RateLimitedError({
        code: "rate_limited",
        message: `Too many sign-in attempts; retry in ${denied.resetSeconds}s`,
        details: { limit: denied.limit, window_seconds: denied.windowSeconds, retry_after: denied.resetSeconds }
      })
    }
  })

const userView = (u: { id: string; email: string; createdAt: Date }) => ({ id: u.id, email: u.email, created_at: u.createdAt.toISOString() })

export const AuthHttpLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const config = yield* AppConfig
    return handlers
      .handle("login", ({ payload, request }) =>
        Effect.gen(function*() {
          if (!isSameOriginWrite(request, config.baseUrl)) return yield* originRefused()
          yield* limitLogin(payload.email)
          const user = yield* accounts.authenticate(payload.email, payload.password)
          if (Option.isNone(user)) {
            return yield* new UnauthorizedError({ code: "invalid_credentials", message: "Wrong e-mail or password" })
          }
          const session = yield* accounts.createSession(user.value.id)
          yield* setSessionCookie(session.token, session.expiresAt)
          return new SignedIn({ user: userView(user.value), session: { expires_at: session.expiresAt.toISOString() } })
        }).pipe(Effect.catchTag("SqlError", Effect.die)))
      .handle("logout", ({ request }) =>
        Effect.gen(function*() {
          if (!isSameOriginWrite(request, config.baseUrl)) return yield* originRefused()
          const token = sessionTokenOf(request)
          if (token !== undefined) yield* accounts.endSession(token)
          yield* clearSessionCookie
        }).pipe(Effect.catchTag("SqlError", Effect.die)))
      .handle("me", () =>
        Effect.gen(function*() {
          const user = yield* CurrentUser
          const domains = yield* accounts.domainsOf(user.id)
          return new Me({ user: userView(user), domains, session: { expires_at: user.sessionExpiresAt.toISOString() } })
        }).pipe(Effect.catchTag("SqlError", Effect.die)))
  }))
