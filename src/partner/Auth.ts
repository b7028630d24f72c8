/**
 * Who is calling the Partner API: the credential a request was signed with.
 *
 * Every partner endpoint adds `.middleware(PartnerAuth)` (on its group) and declares the scopes
 * it needs with `requiresScope("buy")`; the middleware (src/partner/AuthLive.ts) verifies the
 * HMAC signature, timestamp and nonce, then the scope, and provides `CurrentPartner`.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Schema } from "effect"
import { type EndpointAnnotation } from "../platform/http/ApiAnnotations.js"
import { Forbidden, RateLimited, Unauthorized } from "../platform/http/Errors.js"
import { type DocumentedSecurity, headerScheme } from "../platform/openapi/OpenApiDoc.js"

export const SCOPES = ["search", "embed", "buy", "broker", "refer", "report", "webhook"] as const
export type Scope = typeof SCOPES[number]
export const isScope = (s: string): s is Scope => (SCOPES as ReadonlyArray<string>).includes(s)

export type PartnerEnvironment = "live" | "sandbox"

export interface PartnerIdentity {
  readonly partnerId: string
  readonly credentialId: string
  readonly keyId: string
  /** Selects the inventory (and the event stream, webhooks, orders) of every call. */
  readonly environment: PartnerEnvironment
  readonly scopes: ReadonlyArray<Scope>
  readonly affiliate: boolean
}

/** Whose data a read is about: a partner in one environment (a signed request's, or a console member's choice). */
export type PartnerOwner = Pick<PartnerIdentity, "partnerId" | "environment">

export class CurrentPartner extends Context.Tag("app/CurrentPartner")<CurrentPartner, PartnerIdentity>() {}

export class PartnerAuth extends HttpApiMiddleware.Tag<PartnerAuth>()("PartnerAuth", {
  provides: CurrentPartner,
  failure: Schema.Union(Unauthorized, Forbidden, RateLimited)
}) {
  /** The four signing headers, together (docs/partner.md "Signing"). */
  static readonly openApiSecurity: DocumentedSecurity = {
    schemes: {
      partnerKeyId: headerScheme("x-service-key-id", "Partner credential key id"),
      partnerTimestamp: headerScheme(
        "x-service-timestamp",
        "Unix seconds when the request was signed; refused when more than 300 s (PARTNER_SKEW_SECONDS) from server time"
      ),
      partnerNonce: headerScheme(
        "x-service-nonce",
        "Unique per request of this credential, retries included; a reused nonce is refused (replay_detected)"
      ),
      partnerSignature: headerScheme(
        "x-service-signature",
        "`v1=` + lowercase hex HMAC-SHA256(secret, canonical string of method, path, canonical query, timestamp, nonce, body SHA-256); see docs/partner.md"
      )
    }
  }
}

/** Endpoint annotation: any one of these scopes grants access. */
export class RequiredScopes extends Context.Tag("app/RequiredScopes")<RequiredScopes, ReadonlyArray<Scope>>() {}

export const requiresScope = (...scopes: ReadonlyArray<Scope>): EndpointAnnotation => (endpoint) =>
  endpoint
    .annotate(RequiredScopes, scopes)
    .annotate(OpenApi.Override, { "x-required-scopes": scopes })

/** The four signing headers. */
export const SIGNING_HEADERS = {
  keyId: "x-service-key-id",
  timestamp: "x-service-timestamp",
  nonce: "x-service-nonce",
  signature: "x-service-signature"
} as const
