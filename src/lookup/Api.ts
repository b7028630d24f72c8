/**
 * WHOIS/RDAP lookup endpoint.
 *
 *   POST /api/tools/whois {domain}  → 201 {lookup: {id, domain, result, created_at}, used, cap, remaining}
 *
 * Quota: 10 lookups per UTC day per IP for anonymous callers (RATE_LIMIT_WHOIS), BEARER_WHOIS_CAP
 * (default 100) per user with a bearer token. `Idempotency-Key` replays the stored 201 with
 * `Idempotent-Replayed: true` and spends no quota.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { OptionalBearer } from "../identity/Viewer.js"
import { documentedAt, rateLimited } from "../platform/http/ApiAnnotations.js"
import { InvalidDomain } from "../platform/http/DomainInput.js"
import { BadRequest, Conflict, errorWire, RateLimited } from "../platform/http/Errors.js"
import { IdempotencyKey, InvalidIdempotencyKey } from "../platform/http/IdempotencyKey.js"
import { policy } from "../platform/http/RateLimit.js"
import { WhoisNotFound, WhoisQuotaSpent, WhoisUnavailable } from "./Errors.js"
import { LookupRecordSchema } from "./Record.js"

export const limits = {
  /** Anonymous callers, per IP and UTC day. */
  whois: policy("whois", 10, 86_400),
  /** Bearer-token callers, per user and UTC day; the limit comes from BEARER_WHOIS_CAP. */
  whoisBearer: policy("whois_bearer", 100, 86_400)
} as const

export const WhoisRequest = Schema.Struct({
  domain: Schema.String.annotations({
    description: "The domain to look up (Unicode or A-label)",
    examples: ["example.com"]
  })
}).annotations({ identifier: "WhoisRequest" })

export const WhoisLookup = Schema.Struct({
  id: Schema.NullOr(Schema.String).annotations({
    description: "lkp_… id of the stored lookup; null only if storing it failed",
    examples: ["lkp_01jd3k9x0a1b2c3d4e5f6g7h8j"]
  }),
  domain: Schema.String.annotations({ description: "The domain, A-label form", examples: ["example.com"] }),
  result: LookupRecordSchema,
  created_at: Schema.String.annotations({
    description: "When the lookup was made, RFC 3339 UTC",
    examples: ["2026-01-09T14:02:11.000Z"]
  })
}).annotations({ identifier: "WhoisLookup" })

export const WhoisResponse = Schema.Struct({
  lookup: WhoisLookup,
  used: Schema.Int.annotations({ description: "Lookups spent in the current UTC day", examples: [1] }),
  cap: Schema.Int.annotations({ description: "Daily lookups allowed (10 for anonymous callers)", examples: [10] }),
  remaining: Schema.Int.annotations({ description: "Lookups left today", examples: [9] })
}).annotations({ identifier: "WhoisResponse" })

export class LookupApi extends HttpApiGroup.make("lookup")
  .add(
    HttpApiEndpoint.post("whois", "/api/tools/whois")
      .setPayload(WhoisRequest)
      .setHeaders(Schema.Struct({
        "idempotency-key": Schema.optional(IdempotencyKey).annotations({
          description: "Optional: a retry with the same key answers the stored 201 without spending quota"
        })
      }))
      .addSuccess(WhoisResponse, { status: 201 })
      .addError(errorWire(InvalidIdempotencyKey))
      .addError(errorWire(InvalidDomain))
      .addError(errorWire(WhoisNotFound))
      .addError(errorWire(WhoisUnavailable))
      .addError(errorWire(WhoisQuotaSpent))
      .addError(RateLimited)
      .addError(BadRequest)
      .addError(Conflict)
      .middleware(OptionalBearer)
      .annotate(OpenApi.Summary, "WHOIS/RDAP lookup of a domain")
      .annotate(
        OpenApi.Description,
        "Registration data from the registry's RDAP service (registrar referral followed for thin registries), falling back to WHOIS port 43 (`raw_source: \"WHOIS\"`). " +
          "The lookup is stored and returned with its id. Quota: 10 per UTC day per IP anonymous, more with a bearer token; " +
          "headers RateLimit-Limit/Remaining/Reset/Policy (`10;w=86400`), 429 with Retry-After when spent. " +
          "Optional `Idempotency-Key` (echoed): the same key and domain replay the stored 201 with `Idempotent-Replayed: true` and spend nothing; " +
          "the same key with another domain is 409. 400 `invalid_domain`; 404 `whois_not_found` (no source has the name) or `whois_unavailable` (sources failed)."
      )
      .pipe(rateLimited(limits.whois, { enforcedBy: "service" }), documentedAt("/docs/lookup.md#post-apitoolswhois"))
  )
  .annotate(OpenApi.Title, "WHOIS")
  .annotate(OpenApi.Description, "WHOIS/RDAP registration data")
{}
