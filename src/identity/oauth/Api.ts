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
 * These endpoints speak OAuth's own wire formats: errors are `{error, error_description}`
 * (RFC 6749 §5.2 / RFC 7591 §3.2.2), not the service's typed envelope, and the authorize
 * endpoint answers HTML pages and redirects.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect, Schema } from "effect"
import { documentedAt, htmlErrorPages, HtmlPage, rateLimited } from "../../platform/http/ApiAnnotations.js"
import { policy } from "../../platform/http/RateLimit.js"
import type { Refusal } from "../../platform/http/RateLimitEdge.js"

export const oauthLimits = {
  register: policy("oauth_register", 100, 3600),
  token: policy("oauth_token", 120, 60)
} as const

const oauthErrorBody = (identifier: string, status: number, description: string) =>
  Schema.Struct({
    error: Schema.String.annotations({
      description: "OAuth error code, e.g. invalid_grant, invalid_request, unsupported_grant_type"
    }),
    error_description: Schema.String.annotations({ description: "Human-readable explanation" })
  }).annotations({ identifier, description, ...HttpApiSchema.annotations({ status }) })

/** RFC 6749 §5.2 error (400). */
export const OAuthError400 = oauthErrorBody(
  "OAuthError",
  400,
  "OAuth error (RFC 6749 §5.2): invalid_request, invalid_grant, unsupported_grant_type, invalid_scope, invalid_target"
)
/** RFC 6749 §5.2 `invalid_client` (401). */
export const OAuthError401 = oauthErrorBody(
  "OAuthClientError",
  401,
  "invalid_client: unknown client_id (or, on introspection, a missing/wrong ADMIN_TOKEN)"
)
/** RFC 7591 §3.2.2 error (400). */
export const RegistrationError = oauthErrorBody(
  "ClientRegistrationError",
  400,
  "invalid_redirect_uri or invalid_client_metadata (RFC 7591 §3.2.2)"
)
export const OAuthRateLimited = oauthErrorBody(
  "OAuthRateLimited",
  429,
  "Too many requests (error rate_limited); see Retry-After"
)

/** Over the register or token limit: OAuth's own error shape (counted by the request guard). */
const oauthRefused: Refusal = (_request, error) =>
  HttpServerResponse.schemaJson(OAuthRateLimited)({ error: "rate_limited", error_description: error.message }, {
    status: 429,
    headers: { "cache-control": "no-store", pragma: "no-cache", "access-control-allow-origin": "*" }
  }).pipe(Effect.orDie)

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

export const AuthorizationServerMetadata = Schema.Struct({
  issuer: Schema.String,
  authorization_endpoint: Schema.String,
  token_endpoint: Schema.String,
  registration_endpoint: Schema.String,
  revocation_endpoint: Schema.String,
  introspection_endpoint: Schema.String,
  response_types_supported: Schema.Array(Schema.String),
  response_modes_supported: Schema.Array(Schema.String),
  grant_types_supported: Schema.Array(Schema.String),
  code_challenge_methods_supported: Schema.Array(Schema.String),
  token_endpoint_auth_methods_supported: Schema.Array(Schema.String),
  revocation_endpoint_auth_methods_supported: Schema.Array(Schema.String),
  scopes_supported: Schema.Array(Schema.String),
  authorization_response_iss_parameter_supported: Schema.Boolean,
  service_documentation: Schema.String
}).annotations({
  identifier: "AuthorizationServerMetadata",
  description: "RFC 8414 authorization server metadata",
  examples: [{
    issuer: "https://marketplace.example.com",
    authorization_endpoint: "https://marketplace.example.com/oauth/authorize",
    token_endpoint: "https://marketplace.example.com/api/oauth/token",
    registration_endpoint: "https://marketplace.example.com/api/oauth/register",
    revocation_endpoint: "https://marketplace.example.com/api/oauth/revoke",
    introspection_endpoint: "https://marketplace.example.com/api/oauth/introspect",
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: ["pricing:read"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: "https://marketplace.example.com/docs"
  }]
})

export const ProtectedResourceMetadata = Schema.Struct({
  resource: Schema.String.annotations({
    description: "The protected resource's identifier (use it as the RFC 8707 `resource` parameter)"
  }),
  authorization_servers: Schema.Array(Schema.String),
  scopes_supported: Schema.Array(Schema.String),
  bearer_methods_supported: Schema.Array(Schema.String),
  resource_name: Schema.String,
  resource_documentation: Schema.String
}).annotations({
  identifier: "ProtectedResourceMetadata",
  description: "RFC 9728 protected resource metadata",
  examples: [{
    resource: "https://marketplace.example.com",
    authorization_servers: ["https://marketplace.example.com"],
    scopes_supported: ["pricing:read"],
    bearer_methods_supported: ["header"],
    resource_name: "Domain Marketplace API",
    resource_documentation: "https://marketplace.example.com/docs"
  }]
})

const descriptiveField = (description: string) =>
  Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))).annotations({
    description: `${description}; stored and echoed back`
  })

/**
 * What POST /api/oauth/register accepts (RFC 7591 §2), as the service checks it: the endpoint
 * reads the body itself so that a body breaking these rules is answered in RFC 7591's own error
 * shape (`invalid_redirect_uri`, `invalid_client_metadata`), not the typed 400. `null` stands for
 * an absent optional field; unknown fields are ignored.
 */
export const ClientRegistrationRequest = Schema.Struct({
  redirect_uris: Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(20)).annotations({
    description:
      "Exact redirect URIs (1 to 20): https, or http on a loopback address (127.0.0.1, [::1], localhost); no fragment. Else `invalid_redirect_uri`",
    examples: [["http://127.0.0.1:33418/callback"]]
  }),
  client_name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))).annotations({
    description: "Shown to the user on the consent screen"
  }),
  token_endpoint_auth_method: Schema.optional(Schema.NullOr(Schema.Literal("none"))).annotations({
    description: "Only public clients register: `none` (the default)"
  }),
  grant_types: Schema.optional(
    Schema.NullOr(Schema.Array(Schema.Literal("authorization_code", "refresh_token")).pipe(Schema.minItems(1)))
  ).annotations({
    description: "Must include `authorization_code`; may add `refresh_token` (the default is both)"
  }),
  response_types: Schema.optional(
    Schema.NullOr(Schema.Array(Schema.Literal("code")).pipe(Schema.minItems(1), Schema.maxItems(1)))
  ).annotations({
    description: "`[\"code\"]` (the default)"
  }),
  scope: Schema.optional(Schema.String).annotations({
    description: "Space-separated scopes the client may ask for (supported: pricing:read)"
  }),
  client_uri: descriptiveField("The application's home page"),
  logo_uri: descriptiveField("The application's logo"),
  tos_uri: descriptiveField("The application's terms of service"),
  policy_uri: descriptiveField("The application's privacy policy"),
  software_id: descriptiveField("Identifies the client software across its registrations"),
  software_version: descriptiveField("The client software's version")
}).annotations({ identifier: "ClientRegistrationRequest" })

export const ClientInformation = Schema.Struct({
  client_id: Schema.String.annotations({ examples: ["client_01jd3k9x0a1b2c3d4e5f6g7h8j"] }),
  client_id_issued_at: Schema.Int.annotations({ description: "Unix seconds", examples: [1767964931] }),
  client_name: Schema.optional(Schema.String),
  redirect_uris: Schema.Array(Schema.String).annotations({ examples: [["http://127.0.0.1:33418/callback"]] }),
  token_endpoint_auth_method: Schema.Literal("none"),
  grant_types: Schema.Array(Schema.String).annotations({ examples: [["authorization_code", "refresh_token"]] }),
  response_types: Schema.Array(Schema.String).annotations({ examples: [["code"]] }),
  scope: Schema.optional(Schema.String),
  client_uri: Schema.optional(Schema.String),
  logo_uri: Schema.optional(Schema.String),
  tos_uri: Schema.optional(Schema.String),
  policy_uri: Schema.optional(Schema.String),
  software_id: Schema.optional(Schema.String),
  software_version: Schema.optional(Schema.String)
}).annotations({
  identifier: "ClientInformation",
  description: "RFC 7591 client information response (public client: no secret)"
})

const AuthorizeParams = Schema.Struct({
  response_type: Schema.optional(Schema.String).annotations({ description: "code" }),
  client_id: Schema.optional(Schema.String),
  redirect_uri: Schema.optional(Schema.String).annotations({
    description: "Exactly one of the client's registered redirect URIs"
  }),
  code_challenge: Schema.optional(Schema.String).annotations({
    description: "base64url(SHA-256(code_verifier)), 43 characters"
  }),
  code_challenge_method: Schema.optional(Schema.String).annotations({
    description: "S256 (the only method; plain is refused)"
  }),
  state: Schema.optional(Schema.String).annotations({ description: "Returned unchanged on the redirect" }),
  scope: Schema.optional(Schema.String).annotations({ description: "pricing:read (the default when absent)" }),
  resource: Schema.optional(Schema.String).annotations({
    description: "RFC 8707 resource indicator, e.g. <BASE_URL> or <BASE_URL>/mcp"
  })
})

const AuthorizeForm = Schema.Struct({
  action: Schema.optional(Schema.String).annotations({ description: "login | approve | deny" }),
  email: Schema.optional(Schema.String),
  password: Schema.optional(Schema.String),
  csrf: Schema.optional(Schema.String)
}).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

const tokenFields = {
  grant_type: Schema.String.annotations({
    description: "authorization_code | refresh_token",
    examples: ["authorization_code"]
  }),
  client_id: Schema.String.annotations({ examples: ["client_01jd3k9x0a1b2c3d4e5f6g7h8j"] }),
  code: Schema.optional(Schema.String),
  redirect_uri: Schema.optional(Schema.String),
  code_verifier: Schema.optional(Schema.String),
  refresh_token: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String),
  resource: Schema.optional(Schema.String)
}

export const TokenRequestForm = Schema.Struct(tokenFields).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))
  .annotations({
    identifier: "TokenRequest"
  })
export const TokenRequestJson = Schema.Struct(tokenFields).annotations({ identifier: "TokenRequestJson" })

export const TokenResponse = Schema.Struct({
  access_token: Schema.String.annotations({ examples: ["at_pfzdK3u8G81XEFl5j6B3PGW7ZVhuNqQsO4nfsgkwTs4"] }),
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int.annotations({ description: "Seconds (1800)", examples: [1800] }),
  refresh_token: Schema.String.annotations({
    description: "Single use: every refresh returns a new one",
    examples: ["rt_tQ0ZRCNfAHKVACtsKD8jcb0E_Fp_uv_srwMmTP1DxeQ"]
  }),
  scope: Schema.String.annotations({ examples: ["pricing:read"] })
}).annotations({ identifier: "TokenResponse" })

const TokenOnlyFields = {
  token: Schema.String.annotations({ examples: ["rt_tQ0ZRCNfAHKVACtsKD8jcb0E_Fp_uv_srwMmTP1DxeQ"] }),
  token_type_hint: Schema.optional(Schema.String),
  client_id: Schema.optional(Schema.String)
}

export const Introspection = Schema.Struct({
  active: Schema.Boolean,
  scope: Schema.optional(Schema.String),
  client_id: Schema.optional(Schema.String),
  sub: Schema.optional(Schema.String),
  token_type: Schema.optional(Schema.String),
  exp: Schema.optional(Schema.Int),
  iat: Schema.optional(Schema.Int),
  iss: Schema.optional(Schema.String),
  aud: Schema.optional(Schema.String)
}).annotations({ identifier: "Introspection", description: "RFC 7662 introspection response" })

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
