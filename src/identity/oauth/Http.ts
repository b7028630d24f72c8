/**
 * Handlers of the OAuth endpoints: HTTP in (forms, JSON, cookies, HTML), service calls, HTTP out
 * in OAuth's own wire formats. Every JSON answer is encoded by the schema its endpoint declares
 * (Api.ts), errors included, so OpenAPI says what the wire carries.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Option, Redacted } from "effect"
import { createHmac } from "node:crypto"
import { Api } from "../../app/Api.js"
import { SUPPORTED_SCOPES } from "../../domain/OAuthRules.js"
import { AppConfig } from "../../platform/Config.js"
import { safeEqual } from "../../platform/security/Crypto.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { Accounts } from "../accounts/Accounts.js"
import { limitLogin } from "../accounts/LoginLimit.js"
import { currentSession, isSameOriginWrite, setSessionCookie } from "../Session.js"
import {
  ClientInformation,
  Introspection,
  OAuthError400,
  OAuthError401,
  RegistrationError,
  TokenResponse
} from "./Api.js"
import { readClientMetadata, readParams } from "./Body.js"
import { type AuthorizeParams, type AuthorizeRequest, OAuth, OAuthError, redirectTo } from "./OAuth.js"
import { consentPage, errorPage, type PageContext, signInPage } from "./Pages.js"
import { CORS, NO_STORE, oauthJson } from "./Wire.js"

const REGISTRATION_ERRORS = new Set(["invalid_redirect_uri", "invalid_client_metadata"])

/** RFC 6749 §5.2 / RFC 7591 §3.2.2: `invalid_client` is 401, every other error 400. */
const oauthErrorResponse = (e: OAuthError) => {
  const body = { error: e.error, error_description: e.description }
  if (e.error === "invalid_client") return oauthJson(OAuthError401, 401, body)
  return oauthJson(REGISTRATION_ERRORS.has(e.error) ? RegistrationError : OAuthError400, 400, body)
}

/** Adds headers to the response the success schema encodes. */
const withHeaders = (headers: Record<string, string>) =>
  HttpApp.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeaders(res, headers)))

const PAGE_HEADERS = {
  ...NO_STORE,
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'",
  // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on the form posts,
  // which the Origin check must refuse.
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff"
}

const html = (status: number, body: string) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: PAGE_HEADERS })

const redirect = (location: string, status: 302 | 303) =>
  HttpServerResponse.redirect(location, { status, headers: NO_STORE })

/** `/oauth/authorize?…` carrying the (validated) request parameters, for the page's forms. */
const formActionOf = (p: AuthorizeParams) => {
  const q = new URLSearchParams()
  for (
    const key of [
      "response_type",
      "client_id",
      "redirect_uri",
      "code_challenge",
      "code_challenge_method",
      "state",
      "scope",
      "resource"
    ] as const
  ) {
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
    /** Discovery documents: public, cross-origin readable, cacheable for five minutes. */
    const metadata = <A>(body: A) => Effect.as(withHeaders({ ...CORS, "cache-control": "public, max-age=300" }), body)

    return handlers
      .handle("authorizationServerMetadata", () => metadata(asMetadata))
      .handle("protectedResourceMetadata", () => metadata(resourceMetadata(base, "Domain Marketplace API")))
      .handle("mcpProtectedResourceMetadata", () =>
        metadata(resourceMetadata(`${base}/mcp`, "Domain Marketplace agent endpoint (MCP)", `${base}/docs/agents.md`)))
      .handleRaw("register", ({ request }) =>
        Effect.gen(function*() {
          const client = yield* oauth.registerClient(yield* readClientMetadata(request))
          return yield* oauthJson(ClientInformation, 201, client)
        }).pipe(Effect.catchTags({ OAuthError: oauthErrorResponse })))
      .handle("authorize", ({ urlParams }) =>
        Effect.gen(function*() {
          const check = yield* oauth.checkAuthorize(urlParams)
          if (check._tag === "Fatal") {
            return html(400, errorPage(check.title, check.message))
          }
          if (check._tag === "RedirectError") {
            return redirect(
              redirectTo(check.redirectUri, base, {
                error: check.error,
                error_description: check.description,
                state: check.state
              }),
              302
            )
          }
          const ctx = pageContext(check.request, urlParams)
          const session = yield* currentSession
          if (Option.isNone(session)) {
            return html(200, signInPage(ctx))
          }
          return html(
            200,
            consentPage({ ...ctx, userEmail: session.value.user.email, csrf: csrfFor(session.value.id) })
          )
        }))
      .handle("authorizeDecision", ({ payload, request, urlParams }) =>
        Effect.gen(function*() {
          const check = yield* oauth.checkAuthorize(urlParams)
          if (check._tag === "Fatal") {
            return html(400, errorPage(check.title, check.message))
          }
          if (check._tag === "RedirectError") {
            return redirect(
              redirectTo(check.redirectUri, base, {
                error: check.error,
                error_description: check.description,
                state: check.state
              }),
              303
            )
          }
          if (!isSameOriginWrite(request, base)) {
            return html(
              403,
              errorPage("Request refused", "This form was posted from another site. Start again from the application.")
            )
          }
          const ctx = pageContext(check.request, urlParams)
          if (payload.action === "login") {
            const email = payload.email ?? ""
            const password = payload.password ?? ""
            if (email === "" || password === "") {
              return html(200, signInPage({ ...ctx, email, error: "Enter your e-mail and password." }))
            }
            const limited = yield* Effect.either(limitLogin(email))
            if (Either.isLeft(limited)) {
              return html(
                429,
                signInPage({ ...ctx, email, error: `Too many sign-in attempts. ${limited.left.message}` })
              )
            }
            const signedIn = yield* Effect.either(accounts.signIn(email, password))
            if (Either.isLeft(signedIn)) {
              return html(200, signInPage({ ...ctx, email, error: "Wrong e-mail or password." }))
            }
            yield* setSessionCookie(signedIn.right.token, signedIn.right.expiresAt)
            return redirect(ctx.formAction, 303)
          }
          if (payload.action === "approve" || payload.action === "deny") {
            const session = yield* currentSession
            if (Option.isNone(session)) {
              return html(200, signInPage({ ...ctx, error: "Your session has ended; sign in again." }))
            }
            if (payload.csrf === undefined || !safeEqual(payload.csrf, csrfFor(session.value.id))) {
              return html(
                403,
                errorPage("Stale form", "This consent form is out of date. Start again from the application.")
              )
            }
            if (payload.action === "deny") {
              return redirect(oauth.deny(check.request), 303)
            }
            return redirect(yield* oauth.approve(session.value.user.id, check.request), 303)
          }
          return html(400, errorPage("Bad request", "Unknown form action."))
        }))
      .handleRaw("token", ({ request }) =>
        Effect.gen(function*() {
          const tokens = yield* oauth.token(yield* readParams(request))
          return yield* oauthJson(TokenResponse, 200, tokens)
        }).pipe(Effect.catchTags({ OAuthError: oauthErrorResponse })))
      .handleRaw("revoke", ({ request }) =>
        Effect.gen(function*() {
          const params = yield* readParams(request)
          if (!params.token) {
            return yield* new OAuthError({ error: "invalid_request", description: "token is required" })
          }
          yield* oauth.revoke(params.token, params.client_id)
          return HttpServerResponse.empty({ status: 200, headers: { ...NO_STORE, ...CORS } })
        }).pipe(Effect.catchTag("OAuthError", oauthErrorResponse)))
      .handleRaw("introspect", ({ request }) =>
        Effect.gen(function*() {
          const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1]
          if (Option.isNone(adminToken) || presented === undefined || !safeEqual(presented, adminToken.value)) {
            return yield* HttpServerResponse.schemaJson(OAuthError401)(
              { error: "invalid_client", error_description: "Introspection needs Authorization: Bearer <ADMIN_TOKEN>" },
              { status: 401, headers: { ...NO_STORE, "www-authenticate": "Bearer realm=\"introspection\"" } }
            ).pipe(Effect.orDie)
          }
          const params = yield* readParams(request)
          if (!params.token) {
            return yield* new OAuthError({ error: "invalid_request", description: "token is required" })
          }
          return yield* oauthJson(Introspection, 200, yield* oauth.introspect(params.token))
        }).pipe(Effect.catchTag("OAuthError", oauthErrorResponse)))
  }))
