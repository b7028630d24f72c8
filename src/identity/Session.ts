/**
 * Cookie sign-in sessions, for the endpoints a signed-in person uses from a browser (bulk domain
 * operations, the OAuth consent page).
 *
 * Endpoints add `.middleware(SessionAuth)` and read `yield* CurrentUser` in the handler.
 *
 * - no session cookie, or an unknown/expired one → 401 `not_signed_in` (typed shape)
 * - a write (POST/PUT/PATCH/DELETE) whose `Origin` is not this service → 403 `origin_refused`,
 *   checked before the cookie is even looked at: a cookie-authenticated write from another site is
 *   cross-site request forgery. Requests without `Origin` (curl, server-side code) are not from a
 *   browser page of another site and pass; browsers always send `Origin` on such requests.
 *
 * The cookie: `mp_session=<random 256-bit token>; Path=/; HttpOnly; SameSite=Lax; Max-Age=…`
 * (+ `Secure` when NODE_ENV=production). Only the token's SHA-256 is stored server-side.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import type { AppConfigShape } from "../platform/Config.js"
import { AppConfig } from "../platform/Config.js"
import { Forbidden, ForbiddenError, Unauthorized, UnauthorizedError } from "../platform/http/Errors.js"
import { Accounts, type User } from "./accounts/Accounts.js"

export const SESSION_COOKIE = "mp_session"

export interface SignedInUser extends User {
  readonly sessionId: string
  readonly sessionExpiresAt: Date
}

export class CurrentUser extends Context.Tag("app/CurrentUser")<CurrentUser, SignedInUser>() {}

export class SessionAuth extends HttpApiMiddleware.Tag<SessionAuth>()("SessionAuth", {
  provides: CurrentUser,
  failure: Schema.Union(Unauthorized, Forbidden),
  security: {
    session: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "Session cookie set by POST /api/auth/login (HttpOnly, SameSite=Lax)"
      )
    )
  }
}) {}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * Whether a request may act with the session cookie it carries: safe methods always; writes only
 * when `Origin` is this service (BASE_URL's origin, or the very host the request was sent to).
 */
export const isSameOriginWrite = (
  request: { readonly method: string; readonly headers: Readonly<Record<string, string | undefined>> },
  baseUrl: string
): boolean => {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return true
  const origin = request.headers.origin
  if (origin !== undefined) {
    if (origin === new URL(baseUrl).origin) return true
    let host: string
    try {
      const url = new URL(origin)
      if (url.protocol !== "http:" && url.protocol !== "https:") return false
      host = url.host
    } catch {
      return false // includes the opaque origin "null"
    }
    const requestHost = request.headers.host
    return requestHost !== undefined && requestHost.toLowerCase() === host.toLowerCase()
  }
  // No Origin: not a browser page of another site, unless Fetch Metadata says otherwise.
  const site = request.headers["sec-fetch-site"]
  return site === undefined || site === "same-origin" || site === "none"
}

export const originRefused = () =>
  new ForbiddenError({
    code: "origin_refused",
    message:
      "Cross-site request refused: a cookie-authenticated write must come from this service's own pages (Origin mismatch)"
  })

/** `Set-Cookie` attributes of the session cookie. */
export const sessionCookieOptions = (config: AppConfigShape, maxAge: Duration.Duration) => ({
  path: "/",
  httpOnly: true,
  sameSite: "lax" as const,
  secure: config.production,
  maxAge
})

/** Adds the session cookie to whatever response follows. */
export const setSessionCookie = (token: string, expiresAt: Date) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const maxAge = Duration.millis(Math.max(0, expiresAt.getTime() - Date.now()))
    yield* HttpApp.appendPreResponseHandler((_req, res) =>
      Effect.succeed(
        HttpServerResponse.unsafeSetCookie(res, SESSION_COOKIE, token, sessionCookieOptions(config, maxAge))
      )
    )
  })

/** Expires the session cookie in the browser. */
export const clearSessionCookie = Effect.gen(function*() {
  const config = yield* AppConfig
  yield* HttpApp.appendPreResponseHandler((_req, res) =>
    Effect.succeed(
      HttpServerResponse.unsafeSetCookie(res, SESSION_COOKIE, "", {
        ...sessionCookieOptions(config, Duration.zero),
        expires: new Date(0)
      })
    )
  )
})

/** The session cookie's value on a request, if any. */
export const sessionTokenOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const value = request.cookies[SESSION_COOKIE]
  return value === undefined || value === "" ? undefined : value
}

/** Resolves the request's session cookie (no Origin check; callers decide). */
export const currentSession = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const accounts = yield* Accounts
  const token = sessionTokenOf(request)
  if (token === undefined) return Option.none()
  return yield* accounts.resolveSession(token)
})

export const SessionAuthLive = Layer.effect(
  SessionAuth,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const config = yield* AppConfig
    return SessionAuth.of({
      session: (token) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!isSameOriginWrite(request, config.baseUrl)) return yield* originRefused()
          const value = Redacted.value(token)
          if (value === "") {
            return yield* new UnauthorizedError({
              code: "not_signed_in",
              message: "Sign in first: POST /api/auth/login"
            })
          }
          const session = yield* accounts.resolveSession(value)
          if (Option.isNone(session)) {
            return yield* new UnauthorizedError({
              code: "not_signed_in",
              message: "The session has expired or was ended; sign in again"
            })
          }
          return { ...session.value.user, sessionId: session.value.id, sessionExpiresAt: session.value.expiresAt }
        })
    })
  })
)
