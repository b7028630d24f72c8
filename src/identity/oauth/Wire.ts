/**
 * OAuth's own wire formats (docs/identity.md): its `{error, error_description}` bodies (RFC 6749
 * §5.2, RFC 7591 §3.2.2), the metadata documents (RFC 8414, RFC 9728), client registration
 * (RFC 7591), the authorize and token requests, the token and introspection (RFC 7662) answers.
 * The contract: these are what the wire carries and OpenAPI shows, not the service's typed envelope.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Schema } from "effect"

export const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" }
/** Public, cross-origin readable (browser-based clients run discovery and the token exchange). */
export const CORS = { "access-control-allow-origin": "*" }

/** An OAuth JSON answer, encoded by the endpoint's declared schema for that status. */
export const oauthJson = <A, I>(schema: Schema.Schema<A, I>, status: number, body: A) =>
  HttpServerResponse.schemaJson(schema)(body, { status, headers: { ...NO_STORE, ...CORS } }).pipe(Effect.orDie)

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

export const AuthorizeParams = Schema.Struct({
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

export const AuthorizeForm = Schema.Struct({
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

export const TokenOnlyFields = {
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
