/**
 * The OAuth 2.1 authorization server's endpoints (docs/identity.md).
 *
 *   GET  /.well-known/oauth-authorization-server       RFC 8414 metadata
 *   GET  /.well-known/oauth-protected-resource[/mcp]   RFC 9728 metadata
 *   POST /api/oauth/register                           RFC 7591 dynamic client registration
 *   GET  /oauth/authorize                              sign-in + consent page (HTML)
 *   POST /oauth/authorize                              the page's form posts
 *   POST /api/oauth/token                              authorization_code (+PKCE S256), refresh_token
 *   POST /api/oauth/revoke                             RFC 7009
 *   POST /api/oauth/introspect                         RFC 7662 (bearer ADMIN_TOKEN)
 *
 * These endpoints speak OAuth's own wire formats (Wire.ts): errors are `{error, error_description}`
 * (RFC 6749 §5.2 / RFC 7591 §3.2.2), not the service's typed envelope, and the authorize
 * endpoint answers HTML pages and redirects.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt, htmlErrorPages, HtmlPage, rateLimited } from "../../platform/http/ApiAnnotations.js"
import { policy } from "../../platform/http/RateLimit.js"
import type { Refusal } from "../../platform/http/RateLimitEdge.js"
import {
  AuthorizationServerMetadata,
  AuthorizeForm,
  AuthorizeParams,
  ClientInformation,
  ClientRegistrationRequest,
  Introspection,
  OAuthError400,
  OAuthError401,
  oauthJson,
  OAuthRateLimited,
  ProtectedResourceMetadata,
  RegistrationError,
  TokenOnlyFields,
  TokenRequestForm,
  TokenRequestJson,
  TokenResponse
} from "./Wire.js"

// The answers' schemas, for the handlers (Http.ts) that encode them.
export {
  ClientInformation,
  Introspection,
  OAuthError400,
  OAuthError401,
  OAuthRateLimited,
  RegistrationError,
  TokenResponse
} from "./Wire.js"

export const oauthLimits = {
  register: policy("oauth_register", 100, 3600),
  token: policy("oauth_token", 120, 60)
} as const

/** Over the register or token limit: OAuth's own error shape (counted by the request guard). */
const oauthRefused: Refusal = (_request, error) =>
  oauthJson(OAuthRateLimited, 429, { error: "rate_limited", error_description: error.message })

/**
 * These endpoints read their own bodies (form or JSON; see Body.ts) and never answer the typed 400
 * envelope HttpApi declares by default: the OpenAPI operation is corrected to say what is really sent.
 */
const oauthErrorsOnly = (description: string, statuses: Record<string, unknown> = {}) =>
  OpenApi.annotations({
    transform: (op: any) => ({
      ...op,
      responses: {
        ...op.responses,
        "400": {
          description,
          content: { "application/json": { schema: { $ref: "#/components/schemas/OAuthError" } } }
        },
        ...statuses
      }
    })
  })

/** The authorization page answers HTML error pages (and the typed 400 only for unparseable query strings). */
const htmlErrors = htmlErrorPages(
  "Error page (unknown client, missing or unregistered redirect URI; never a redirect), or the typed 400 for a malformed query string"
)

const Html = HtmlPage

export class OAuthApi extends HttpApiGroup.make("oauth")
  .add(
    HttpApiEndpoint.get("authorizationServerMetadata", "/.well-known/oauth-authorization-server")
      .addSuccess(AuthorizationServerMetadata)
      .annotate(
        OpenApi.Description,
        "The authorization server metadata (RFC 8414): issuer, authorization and token endpoints, supported grants, scopes and PKCE methods (S256 only)."
      )
      .annotate(OpenApi.Summary, "Authorization server metadata (RFC 8414)")
      .pipe(documentedAt("/docs/identity.md#discovery"))
  )
  .add(
    HttpApiEndpoint.get("protectedResourceMetadata", "/.well-known/oauth-protected-resource")
      .addSuccess(ProtectedResourceMetadata)
      .annotate(
        OpenApi.Description,
        "The protected resource metadata of the REST API (RFC 9728): its resource identifier, the authorization server and the scopes it accepts."
      )
      .annotate(OpenApi.Summary, "Protected resource metadata of the REST API (RFC 9728)")
      .pipe(documentedAt("/docs/identity.md#discovery"))
  )
  .add(
    HttpApiEndpoint.get("mcpProtectedResourceMetadata", "/.well-known/oauth-protected-resource/mcp")
      .addSuccess(ProtectedResourceMetadata)
      .annotate(
        OpenApi.Description,
        "The protected resource metadata of the agent endpoint /mcp (RFC 9728), for MCP clients that sign in with OAuth."
      )
      .annotate(OpenApi.Summary, "Protected resource metadata of the agent endpoint /mcp (RFC 9728)")
      .pipe(documentedAt("/docs/identity.md#discovery"))
  )
  .add(
    HttpApiEndpoint.post("register", "/api/oauth/register")
      .setPayload(ClientRegistrationRequest)
      .addSuccess(ClientInformation, { status: 201 })
      .addError(RegistrationError)
      .addError(OAuthRateLimited)
      .annotateContext(OpenApi.annotations({
        transform: (op: any) => ({
          ...op,
          responses: {
            ...op.responses,
            "400": {
              description: "invalid_redirect_uri or invalid_client_metadata (RFC 7591 §3.2.2)",
              content: { "application/json": { schema: { $ref: "#/components/schemas/ClientRegistrationError" } } }
            }
          }
        })
      }))
      .annotate(OpenApi.Summary, "Register a public client (RFC 7591)")
      .annotate(
        OpenApi.Description,
        "No approval step and no client secret: `token_endpoint_auth_method` is always `none`. Redirect URIs must be https, or http on a loopback address. Errors: `invalid_redirect_uri`, `invalid_client_metadata`."
      )
      .pipe(
        rateLimited(oauthLimits.register, { refusal: oauthRefused }),
        documentedAt("/docs/identity.md#register-a-client")
      )
  )
  .add(
    HttpApiEndpoint.get("authorize", "/oauth/authorize")
      .setUrlParams(AuthorizeParams)
      .addSuccess(Html(200, "Sign-in form or consent screen"))
      .addSuccess(
        Schema.Void.annotations({
          description: "Redirect (302) to the redirect URI with an OAuth error (and state, iss)",
          ...HttpApiSchema.annotations({ status: 302 })
        })
      )
      .addError(Html(400, "Error page: unknown client, missing or unregistered redirect URI. Never a redirect."))
      .annotateContext(htmlErrors)
      .annotate(OpenApi.Summary, "Authorization endpoint: sign-in and consent page")
      .annotate(
        OpenApi.Description,
        "Open in a browser. Without a session it shows a sign-in form; signed in, a consent screen naming the application and the scope. Approval redirects (303) to the redirect URI with `code`, `state` and `iss`; denial with `error=access_denied`."
      )
      .pipe(documentedAt("/docs/identity.md#authorize"))
  )
  .add(
    HttpApiEndpoint.post("authorizeDecision", "/oauth/authorize")
      .setUrlParams(AuthorizeParams)
      .setPayload(AuthorizeForm)
      .addSuccess(Html(200, "The sign-in form again (wrong credentials) or the consent screen"))
      .addSuccess(
        Schema.Void.annotations({
          description: "Redirect (303): after sign-in back to the consent screen; after a decision to the redirect URI",
          ...HttpApiSchema.annotations({ status: 303 })
        })
      )
      .addError(Html(400, "Error page (bad client or redirect URI)"))
      .addError(Html(403, "Cross-site form post refused (Origin) or stale form"))
      .addError(Html(429, "Too many sign-in attempts"))
      .annotateContext(htmlErrors)
      .annotate(
        OpenApi.Description,
        "The sign-in and consent forms of GET /oauth/authorize post here with the authorization request's parameters. Allow redirects (303) to the client's redirect_uri with `code` and `state`; deny redirects with `error=access_denied`; wrong credentials show the form again. Posts from another site are refused (403)."
      )
      .annotate(OpenApi.Summary, "Form posts of the authorization page (sign in, allow, deny)")
      .pipe(documentedAt("/docs/identity.md#authorize"))
  )
  .add(
    HttpApiEndpoint.post("token", "/api/oauth/token")
      .setPayload(Schema.Union(TokenRequestForm, TokenRequestJson))
      .addSuccess(TokenResponse)
      .addError(OAuthError400)
      .addError(OAuthError401)
      .addError(OAuthRateLimited)
      .annotateContext(
        oauthErrorsOnly(
          "OAuth error (RFC 6749 §5.2): invalid_request, invalid_grant, unsupported_grant_type, invalid_scope, invalid_target"
        )
      )
      .annotate(OpenApi.Summary, "Token endpoint: authorization_code (PKCE S256) and refresh_token grants")
      .annotate(
        OpenApi.Description,
        "Form-encoded (standard) or JSON body. Answers carry `Cache-Control: no-store`. Codes are single use and live 60 s; access tokens 30 min; refresh tokens 30 days and rotate on every use. Presenting a spent code or refresh token again revokes every token of that authorization."
      )
      .pipe(
        rateLimited(oauthLimits.token, { refusal: oauthRefused }),
        documentedAt("/docs/identity.md#exchange-the-code")
      )
  )
  .add(
    HttpApiEndpoint.post("revoke", "/api/oauth/revoke")
      .setPayload(Schema.Union(
        Schema.Struct(TokenOnlyFields).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" })),
        Schema.Struct(TokenOnlyFields)
      ))
      .addSuccess(
        Schema.Void.annotations({
          description: "Always 200 for a well-formed request, known token or not (RFC 7009 §2.2)",
          ...HttpApiSchema.annotations({ status: 200 })
        })
      )
      .addError(OAuthError400)
      .annotateContext(oauthErrorsOnly("invalid_request: no token given"))
      .annotate(OpenApi.Summary, "Revoke a token (RFC 7009)")
      .annotate(
        OpenApi.Description,
        "Revoking a refresh token ends the whole authorization (its access tokens too); revoking an access token ends that token."
      )
      .pipe(documentedAt("/docs/identity.md#revoke"))
  )
  .add(
    HttpApiEndpoint.post("introspect", "/api/oauth/introspect")
      .setPayload(Schema.Union(
        Schema.Struct(TokenOnlyFields).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" })),
        Schema.Struct(TokenOnlyFields)
      ))
      .addSuccess(Introspection)
      .addError(OAuthError400)
      .addError(OAuthError401)
      .annotateContext(oauthErrorsOnly("invalid_request: no token given"))
      .annotate(OpenApi.Summary, "Introspect a token (RFC 7662), for the service's own resource servers")
      .annotate(OpenApi.Description, "Authenticated with `Authorization: Bearer <ADMIN_TOKEN>`.")
      .pipe(documentedAt("/docs/identity.md#introspect"))
  )
  .annotate(OpenApi.Title, "OAuth")
  .annotate(OpenApi.Description, "OAuth 2.1 authorization server: discovery, registration, authorization, tokens")
{}
