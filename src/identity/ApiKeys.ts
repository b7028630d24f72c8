/**
 * API key pairs for the keyed developer endpoints under /api/v1 (`x-api-key` + `x-api-secret`).
 * Endpoints add `.middleware(ApiKeyAuth)` and read `yield* CurrentApiKey`. Missing or wrong
 * credentials → 401 in the legacy error shape (`{"error":"…"}`).
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import { Context } from "effect"
import { LegacyUnauthorized } from "../platform/http/Errors.js"
import { type DocumentedSecurity, headerScheme } from "../platform/openapi/OpenApiDoc.js"

export interface ApiKeyIdentity {
  readonly keyId: string
  readonly name: string
}

export class CurrentApiKey extends Context.Tag("app/CurrentApiKey")<CurrentApiKey, ApiKeyIdentity>() {}

export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", {
  provides: CurrentApiKey,
  failure: LegacyUnauthorized
}) {
  /** Both headers of the pair, together. */
  static readonly openApiSecurity: DocumentedSecurity = {
    schemes: {
      apiKey: headerScheme("x-api-key", "API key id of a key pair (sent together with x-api-secret)"),
      apiSecret: headerScheme("x-api-secret", "API key secret of the same pair (sent together with x-api-key)")
    }
  }
}
