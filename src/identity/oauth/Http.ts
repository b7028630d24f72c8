/**
 * Handlers of the OAuth endpoints: HTTP in (forms, JSON, cookies, HTML), service calls, HTTP out
 * in OAuth's own wire formats.
 */
import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option, Redacted } from "effect"
import { createHmac } from "node:crypto"
import { Api } from "../../app/Api.js"
import { SUPPORTED_SCOPES } from "../../domain/OAuthRules.js"
import { AppConfig } from "../../platform/Config.js"
import { clipEcho, type RateLimitedError } from "../../platform/Errors.js"
import { enforce } from "../../platform/RateLimit.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { Accounts } from "../accounts/Accounts.js"
import { limitLogin } from "../accounts/Http.js"
import { safeEqual } from "../Crypto.js"
import { currentSession, isSameOriginWrite, setSessionCookie } from "../Session.js"
import { oauthLimits } from "./Api.js"
import { type AuthorizeParams, type AuthorizeRequest, OAuth, OAuthError, redirectTo } from "./OAuth.js"
import { consentPage, errorPage, type PageContext, signInPage } from "./Pages.js"

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" }
/** Public, cross-origin readable (browser-based clients run discovery and the token exchange). */
const CORS = { "access-control-allow-origin": "*" }

const oauthJson = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status, headers: { ...NO_STORE, ...CORS } })

const oauthErrorResponse = (e: OAuthError) => oauthJson(e.status, { error: e.error, error_description: e.description })

const rateLimitedResponse = (e: RateLimitedError) => oauthJson(429, { error: "rate_limited", error_description: e.message })

const PAGE_HEADERS = {
  ...NO_STORE,
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'",
  // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on the form posts,
  // which the Origin check must refuse.
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff"
}

const html = (status: number, body: string) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: PAGE_HEADERS })

const redirect = (location: string, status: 302 | 303) => HttpServerResponse.redirect(location, { status, headers: NO_STORE })

/**
 * The parameters of a form-encoded or JSON request body as a flat string record. Repeated
 * parameters and non-string JSON values are `invalid_request` (RFC 6749 §3.1).
 */
const readParams = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const contentType = (request.headers["content-type"] ?? "").toLowerCase()
    const text = yield* Effect.orElseSucceed(request.text, () => undefined)
    if (text === undefined) return yield* new OAuthError({ error: "invalid_request", description: "Unreadable request body", status: 400 })
    const out: Record<string, string> = {}
    if (contentType.includes("application/x-www-form-urlencoded")) {
      for (const [k, v] of new URLSearchParams(text)) {
        if (k in out) return yield* new OAuthError({ error: "invalid_request", description: `Parameter ${clipEcho(k)} is repeated`, status: 400 })
        out[k] = v
      }
      return out
    }
    if (contentType.includes("application/json")) {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        return yield* new OAuthError({ error: "invalid_request", description: "The body is not valid JSON", status: 400 })
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return yield* new OAuthError({ error: "invalid_request", description: "The JSON body must be an object", status: 400 })
      }
      for (const [k, v] of Object.entries(parsed)) {
        if (v === null || v === undefined) continue
        if (typeof v !== "string") return yield* new OAuthError({ error: "invalid_request", description: `Parameter ${clipEcho(k)} must be a string`, status: 400 })
        out[k] = v
      }
      return out
    }
    return yield* new OAuthError({
      error: "invalid_request",
      description: "Send the parameters as application/x-www-form-urlencoded (or application/json)",
      status: 400
    })
  })

/** `/oauth/authorize?…` carrying the (validated) request parameters, for the page's forms. */
const formActionOf = (p: AuthorizeParams) => {
  const q = new URLSearchParams()
  for (const key of ["response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "state", "scope", "resource"] as const) {
    const v = p[key]
    if (v !== undefined) q.set(key, v)
  }
  return `/oauth/authorize?${q.toString()}`
}

const pageContext = (request: AuthorizeRequest, params: AuthorizeParams): PageContext => ({
  clientName: request.client.clientName ?? request.client.clientId,
  redirectHost: new URL(request.redirectUri).host,
  scopes: request.scopes,
  formAction: formActionOf(params)
})

export const OAuthHttpLive = HttpApiBuilder.group(Api, "oauth", (handlers) =>
  Effect.gen(function*() {
    const oauth = yield* OAuth
    const accounts = yield* Accounts
    const config = yield* AppConfig
    const secret = yield* ServiceSecret
    const base = config.baseUrl
    const csrfKey = secret.key("oauth-consent-csrf")
    const csrfFor = (sessionId: string) => createHmac("sha256", csrfKey).update(sessionId).digest("base64url")
    const adminToken = Option.map(config.adminToken, Redacted.value)

    const asMetadata = {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/api/oauth/token`,
      registration_endpoint: `${base}/api/oauth/register`,
      revocation_endpoint: `${base}/api/oauth/revoke`,
      introspection_endpoint: `${base}/api/oauth/introspect`,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      scopes_supported: [...SUPPORTED_SCOPES],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${base}/docs`
    }
    const resourceMetadata = (resource: string, name: string, documentation = `${base}/docs`) => ({
      resource,
      authorization_servers: [base],
      scopes_supported: [...SUPPORTED_SCOPES],
      bearer_methods_supported: ["header"],
      resource_name: name,
      resource_documentation: documentation
    })
    const metadataResponse = (body: unknown) =>
      HttpServerResponse.unsafeJson(body, { headers: { ...CORS, "cache-control": "public, max-age=300" } })

    const internal = (e: unknown) => Effect.die(e)

    return handlers
      .handle("authorizationServerMetadata", () => Effect.succeed(metadataResponse(asMetadata)))
      .handle("protectedResourceMetadata", () => Effect.succeed(metadataResponse(resourceMetadata(base, "Domain Marketplace API"))))
      .handle("mcpProtectedResourceMetadata", () =>
        Effect.succeed(metadataResponse(resourceMetadata(`${base}/mcp`, "Domain Marketplace agent endpoint (MCP)", `${base}/docs/agents.md`))))
      .handleRaw("register", ({ request }) =>
        Effect.gen(function*() {
          yield* enforce(oauthLimits.register)
          const text = yield* Effect.orElseSucceed(request.text, () => "")
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {
            return yield* new OAuthError({ error: "invalid_client_metadata", description: "The body must be a JSON object of client metadata", status: 400 })
          }
          const client = yield* oauth.registerClient(body)
          return oauthJson(201, client)
        }).pipe(
          Effect.catchTags({ OAuthError: (e) => Effect.succeed(oauthErrorResponse(e)), RateLimited: (e) => Effect.succeed(rateLimitedResponse(e)), SqlError: internal })
        ))
      .handle("authorize", ({ urlParams }) =>
        Effect.gen(function*() {
          const check = yield* oauth.checkAuthorize(urlParams)
          if (check._tag === "Fatal") return html(400, errorPage(check.title, check.message))
          if (check._tag === "RedirectError") {
            return redirect(redirectTo(check.redirectUri, base, { error: check.error, error_description: check.description, state: check.state }), 302)
          }
          const ctx = pageContext(check.request, urlParams)
          const session = yield* currentSession
          if (Option.isNone(session)) return html(200, signInPage(ctx))
          return html(200, consentPage({ ...ctx, userEmail: session.value.user.email, csrf: csrfFor(session.value.id) }))
        }).pipe(Effect.catchTag("SqlError", internal)))
      .handle("authorizeDecision", ({ payload, request, urlParams }) =>
        Effect.gen(function*() {
          const check = yield* oauth.checkAuthorize(urlParams)
          if (check._tag === "Fatal") return html(400, errorPage(check.title, check.message))
          if (check._tag === "RedirectError") {
            return redirect(redirectTo(check.redirectUri, base, { error: check.error, error_description: check.description, state: check.state }), 303)
          }
          if (!isSameOriginWrite(request, base)) {
            return html(403, errorPage("Request refused", "This form was posted from another site. Start again from the application."))
          }
          const ctx = pageContext(check.request, urlParams)
          if (payload.action === "login") {
            const email = payload.email ?? ""
            const password = payload.password ?? ""
            if (email === "" || password === "") return html(200, signInPage({ ...ctx, email, error: "Enter your e-mail and password." }))
            const limited = yield* Effect.either(limitLogin(email))
            if (Either.isLeft(limited)) {
              return html(429, signInPage({ ...ctx, email, error: `Too many sign-in attempts. ${limited.left.message}` }))
            }
            const user = yield* accounts.authenticate(email, password)
            if (Option.isNone(user)) return html(200, signInPage({ ...ctx, email, error: "Wrong e-mail or password." }))
            const session = yield* accounts.createSession(user.value.id)
            yield* setSessionCookie(session.token, session.expiresAt)
            return redirect(ctx.formAction, 303)
          }
          if (payload.action === "approve" || payload.action === "deny") {
            const session = yield* currentSession
            if (Option.isNone(session)) return html(200, signInPage({ ...ctx, error: "Your session has ended; sign in again." }))
            if (payload.csrf === undefined || !safeEqual(payload.csrf, csrfFor(session.value.id))) {
              return html(403, errorPage("Stale form", "This consent form is out of date. Start again from the application."))
            }
            if (payload.action === "deny") return redirect(oauth.deny(check.request), 303)
            return redirect(yield* oauth.approve(session.value.user.id, check.request), 303)
          }
          return html(400, errorPage("Bad request", "Unknown form action."))
        }).pipe(Effect.catchTag("SqlError", internal)))
      .handleRaw("token", ({ request }) =>
        Effect.gen(function*() {
          yield* enforce(oauthLimits.token)
          const params = yield* readParams(request)
          const tokens = yield* oauth.token(params)
          return oauthJson(200, tokens)
        }).pipe(
          Effect.catchTags({ OAuthError: (e) => Effect.succeed(oauthErrorResponse(e)), RateLimited: (e) => Effect.succeed(rateLimitedResponse(e)), SqlError: internal })
        ))
      .handleRaw("revoke", ({ request }) =>
        Effect.gen(function*() {
          const params = yield* readParams(request)
          if (!params.token) return yield* new OAuthError({ error: "invalid_request", description: "token is required", status: 400 })
          yield* oauth.revoke(params.token, params.client_id)
          return HttpServerResponse.empty({ status: 200, headers: { ...NO_STORE, ...CORS } })
        }).pipe(Effect.catchTags({ OAuthError: (e) => Effect.succeed(oauthErrorResponse(e)), SqlError: internal })))
      .handleRaw("introspect", ({ request }) =>
        Effect.gen(function*() {
          const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1]
          if (Option.isNone(adminToken) || presented === undefined || !safeEqual(presented, adminToken.value)) {
            return HttpServerResponse.unsafeJson(
              { error: "invalid_client", error_description: "Introspection needs Authorization: Bearer <ADMIN_TOKEN>" },
              { status: 401, headers: { ...NO_STORE, "www-authenticate": 'Bearer realm="introspection"' } }
            )
          }
          const params = yield* readParams(request)
          if (!params.token) return yield* new OAuthError({ error: "invalid_request", description: "token is required", status: 400 })
          return oauthJson(200, yield* oauth.introspect(params.token))
        }).pipe(Effect.catchTags({ OAuthError: (e) => Effect.succeed(oauthErrorResponse(e)), SqlError: internal })))
  }))
