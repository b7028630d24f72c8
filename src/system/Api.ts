/**
 * Service-level endpoints: liveness/readiness, and API discovery.
 *
 *   GET /healthz  → 200 while the process runs
 *   GET /readyz   → 200 when the database answers, else 503
 *   GET /api      → 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (RFC 9728 discovery)
 *   GET /api/v1   → machine-readable index of the public operations
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Unauthorized, Unavailable } from "../platform/http/Errors.js"

export class Health extends Schema.Class<Health>("Health")({
  status: Schema.Literal("ok"),
  checks: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}) {}

export const IndexOperation = Schema.Struct({
  operationId: Schema.String,
  method: Schema.String,
  path: Schema.String,
  summary: Schema.NullOr(Schema.String),
  group: Schema.String,
  rateLimit: Schema.NullOr(Schema.Struct({
    limit: Schema.Int,
    windowSeconds: Schema.Int,
    scope: Schema.Literal("ip"),
    policy: Schema.String
  })),
  docs: Schema.NullOr(Schema.String),
  deprecated: Schema.Boolean
}).annotations({
  examples: [{
    operationId: "marketOffers.makeOffer",
    method: "POST",
    path: "/api/market/offers",
    summary: "Make an offer on a listed domain",
    group: "marketOffers",
    rateLimit: { limit: 10, windowSeconds: 600, scope: "ip", policy: "market_offers" },
    docs: "https://marketplace.example.com/docs/market.md#make-an-offer",
    deprecated: false
  }]
})

export class ApiIndex extends Schema.Class<ApiIndex>("ApiIndex")({
  name: Schema.String.annotations({ examples: ["Domain Marketplace API"] }),
  version: Schema.String.annotations({ examples: ["1.3.0"] }),
  openapi: Schema.String.annotations({ examples: ["https://marketplace.example.com/api/openapi.json"] }),
  docs: Schema.String.annotations({ examples: ["https://marketplace.example.com/docs"] }),
  authorization: Schema.Struct({
    protectedResourceMetadata: Schema.String.annotations({
      examples: ["https://marketplace.example.com/.well-known/oauth-protected-resource"]
    }),
    scopes: Schema.Array(Schema.String).annotations({ examples: [["pricing:read"]] })
  }),
  operations: Schema.Array(IndexOperation)
}) {}

export class SystemApi extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz")
      .addSuccess(Health)
      .annotate(
        OpenApi.Description,
        "Answers 200 `{status: \"ok\"}` while the process runs, without touching the database: the liveness probe for an orchestrator."
      )
      .annotate(OpenApi.Summary, "Liveness: the process is up")
  )
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(Health)
      .addError(Unavailable)
      .annotate(
        OpenApi.Description,
        "Answers 200 when the database answers a query, else 503 `not_ready` with Retry-After: the readiness probe (the image's HEALTHCHECK uses it)."
      )
      .annotate(OpenApi.Summary, "Readiness: the database answers")
  )
  .add(
    HttpApiEndpoint.get("apiRoot", "/api")
      .addSuccess(Schema.Void)
      .addError(Unauthorized)
      .annotate(
        OpenApi.Description,
        "Always 401, with a `WWW-Authenticate` header naming the protected-resource metadata (RFC 9728), so an OAuth client can discover how to obtain a token."
      )
      .annotate(
        OpenApi.Summary,
        "Discovery: answers 401 with WWW-Authenticate pointing at the protected-resource metadata"
      )
  )
  .add(
    HttpApiEndpoint.get("apiIndex", "/api/v1")
      .addSuccess(ApiIndex)
      .annotate(
        OpenApi.Description,
        "Every public operation with its method, path, operation id, rate-limit policy, documentation page and deprecation, plus the OAuth scopes and where this document is; no authentication."
      )
      .annotate(OpenApi.Summary, "Machine-readable index of the public operations")
  )
  .annotate(OpenApi.Title, "System")
  .annotate(
    OpenApi.Description,
    "Liveness, readiness, discovery and the machine-readable index of the public operations"
  )
{}
