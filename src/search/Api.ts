/**
 * Domain search and keyed availability.
 *
 *   POST /api/domain/search           → application/x-ndjson stream (header, row…, primary_done, done)
 *   GET  /api/v1/domains/available    → {domain, available, locked, bin_price, floor_price} (x-api-key + x-api-secret; legacy errors)
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { JSONSchema, Option, Schema, SchemaAST as AST } from "effect"
import { ApiKeyAuth } from "../identity/ApiKeys.js"
import { OptionalBearer } from "../identity/Viewer.js"
import { documentedAt, rateLimited } from "../platform/http/ApiAnnotations.js"
import { InvalidDomain, LegacyInvalidDomain } from "../platform/http/DomainInput.js"
import { BadRequest, errorWire, LegacyBadRequest, legacyErrorWire, RateLimited } from "../platform/http/Errors.js"
import { IdempotencyKey, InvalidIdempotencyKey } from "../platform/http/IdempotencyKey.js"
import { policy } from "../platform/http/RateLimit.js"
import { SearchEvent } from "./Rows.js"

export const limits = {
  search: policy("domain_search", 60, 60)
} as const

export const SearchBody = Schema.Struct({
  q: Schema.String.annotations({
    description:
      "The domain to check (Unicode or A-label). For a plain label.tld query the label's common alternate TLDs are checked too.",
    examples: ["example.com"]
  })
}).annotations({ identifier: "SearchRequest" })

export const NDJSON_DESCRIPTION = [
  "One JSON object per line; `kind` discriminates.",
  "",
  "1. `{\"kind\":\"header\",\"request_id\",\"primary\",\"domains\":[…],\"primary_index\":0}` — at once; `domains[0]` is the primary.",
  "2. `{\"kind\":\"row\",\"domain\",\"domain_unicode\",\"state\",\"state_label\",\"available\",\"price\",\"listing\",\"whois_summary\",\"cached\",\"meta\"}` — the primary's row first,",
  "3. `{\"kind\":\"primary_done\"}` — right after the primary's row,",
  "4. the other rows in completion order,",
  "5. `{\"kind\":\"done\",\"duration_ms\",\"count\"}` — last.",
  "",
  "`state` ∈ available | premium | registered | for_sale | reserved | unsupported | invalid | unknown; `available` is null when unknown.",
  "`price`: USD number (first-year registration, premium-aware) when registrable; `{bin, floor, currency}` when for sale (null amounts without pricing:read); else null.",
  "`listing`: `{id, bin_price, floor_price, currency, url}` or null. `whois_summary`: `{registrar, created, expires, status[]}` or null.",
  "`meta`: `{source, checked_at, latency_ms, reason?}`."
].join("\n")

/**
 * The stream's line schemas (search/Rows.ts) as OpenAPI components; app/Api.ts adds them to the
 * document. The union becomes `oneOf` with its `kind` discriminator, for generated clients.
 */
export const searchStreamSchemas = (): Record<string, unknown> => {
  const defs: Record<string, JSONSchema.JsonSchema7> = {}
  JSONSchema.fromAST(SearchEvent.ast, {
    definitions: defs,
    definitionPath: "#/components/schemas/",
    target: "openApi3.1"
  })
  const { anyOf, ...event } = defs.SearchStreamEvent as { anyOf: ReadonlyArray<{ $ref: string }> }
  const mapping: Record<string, string> = {}
  for (const member of SearchEvent.members) {
    const kind = member.fields.kind.literals[0]
    mapping[kind] = `#/components/schemas/${AST.getIdentifierAnnotation(member.ast).pipe(Option.getOrThrow)}`
  }
  return { ...defs, SearchStreamEvent: { ...event, oneOf: anyOf, discriminator: { propertyName: "kind", mapping } } }
}

export const withItemSchema = (operation: Record<string, any>): Record<string, any> => {
  const ok = operation.responses?.["200"]
  const ndjson = ok?.content?.["application/x-ndjson"]
  if (ndjson === undefined) return operation
  const content = {
    ...ok.content,
    "application/x-ndjson": {
      ...ndjson,
      // `contentSchema` (JSON Schema 2020-12) also makes the event schemas reachable for linters and
      // tools that ignore the extension; it describes each line, not the whole body.
      schema: { ...ndjson.schema, contentSchema: { $ref: "#/components/schemas/SearchStreamEvent" } },
      "x-item-schema": { $ref: "#/components/schemas/SearchStreamEvent" }
    }
  }
  return { ...operation, responses: { ...operation.responses, "200": { ...ok, content } } }
}

export class SearchApi extends HttpApiGroup.make("search")
  .add(
    HttpApiEndpoint.post("searchDomain", "/api/domain/search")
      .setPayload(SearchBody)
      .setHeaders(Schema.Struct({
        "idempotency-key": Schema.optional(IdempotencyKey.annotations({
          description: "Echoed on the response (1–255 visible ASCII characters)"
        }))
      }))
      .addSuccess(
        HttpApiSchema.Text({ contentType: "application/x-ndjson" }).annotations({ description: NDJSON_DESCRIPTION })
      )
      // Each line is one SearchStreamEvent (OpenAPI 3.2 calls this `itemSchema`).
      .annotate(OpenApi.Transform, withItemSchema)
      .addError(errorWire(InvalidIdempotencyKey))
      .addError(errorWire(InvalidDomain))
      .addError(RateLimited)
      .addError(BadRequest)
      .middleware(OptionalBearer)
      .annotate(OpenApi.Summary, "Check a domain and its alternate TLDs (NDJSON stream)")
      .annotate(
        OpenApi.Description,
        "Streams availability as NDJSON: header, the queried domain's row, primary_done, the alternates as they complete, done. " +
          "A bearer token with pricing:read unmasks marketplace prices; registration prices are never masked. 60 requests/min per IP.\n\n" +
          NDJSON_DESCRIPTION
      )
      .pipe(rateLimited(limits.search), documentedAt("/docs/search.md#domain-search-stream"))
  )
  .annotate(OpenApi.Title, "Search")
  .annotate(OpenApi.Description, "Domain availability search")
{}

export class KeyedAvailability extends Schema.Class<KeyedAvailability>("KeyedAvailability")({
  domain: Schema.String.annotations({ description: "The domain, A-label form", examples: ["example.com"] }),
  available: Schema.Boolean.annotations({
    description:
      "Can be acquired now: registrable (available or premium), or listed for sale and not locked. False when unknown.",
    examples: [false]
  }),
  locked: Schema.Boolean.annotations({ description: "Listed, but a sale is pending", examples: [false] }),
  bin_price: Schema.NullOr(Schema.Number).annotations({ description: "Buy-now price in USD when listed, else null" }),
  floor_price: Schema.NullOr(Schema.Number).annotations({
    description: "Floor (minimum offer) in USD when listed, else null"
  })
}) {}

export class KeyedAvailabilityApi extends HttpApiGroup.make("developer")
  .add(
    HttpApiEndpoint.get("domainAvailable", "/api/v1/domains/available")
      .setUrlParams(Schema.Struct({
        domain: Schema.String.annotations({ description: "The domain to check", examples: ["example.com"] })
      }))
      .addSuccess(KeyedAvailability)
      .addError(LegacyBadRequest)
      .addError(legacyErrorWire(LegacyInvalidDomain))
      .middleware(ApiKeyAuth)
      .annotate(OpenApi.Summary, "Keyed availability of one domain")
      .annotate(
        OpenApi.Description,
        "Requires headers x-api-key and x-api-secret. Answers with marketplace prices (USD) when the domain is listed. Errors use the legacy shape {\"error\":\"…\"}."
      )
      .pipe(documentedAt("/docs/search.md#keyed-availability"))
  )
  .annotate(OpenApi.Title, "Developer")
  .annotate(OpenApi.Description, "Keyed developer endpoints (x-api-key + x-api-secret)")
{}
