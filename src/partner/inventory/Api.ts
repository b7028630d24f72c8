/**
 * Partner inventory (scope `search`): search, domain detail, availability and pricing over the
 * inventory of the credential's environment (live or sandbox).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt } from "../../platform/ApiAnnotations.js"
import { BadRequest, errorWire, InternalError } from "../../platform/Errors.js"
import { PartnerAuth, requiresScope } from "../Auth.js"
import { MalformedDomain, MalformedParameter } from "../Errors.js"
import { DomainNotListed } from "./Errors.js"

const Cents = Schema.NullOr(Schema.Int).annotations({ description: "USD cents; null when not offered" })

export class SearchResultItem extends Schema.Class<SearchResultItem>("PartnerSearchResult")({
  domain: Schema.String.annotations({ description: "A-label form" }),
  tld: Schema.String,
  bin_price_cents: Cents,
  floor_price_cents: Cents,
  currency: Schema.String,
  available: Schema.Boolean.annotations({ description: "Listed, not locked and not reserved or sold to someone else" }),
  score: Schema.Number.annotations({
    description: "Relevance (reciprocal rank fusion of keyword and semantic rankings), 0–1"
  })
}) {}

export class SearchResponse extends Schema.Class<SearchResponse>("PartnerSearchResponse")({
  query: Schema.String,
  count: Schema.Int,
  results: Schema.Array(SearchResultItem).annotations({ description: "At most 5, best first" })
}) {}

export class DomainDetail extends Schema.Class<DomainDetail>("PartnerDomainDetail")({
  domain: Schema.String,
  domain_unicode: Schema.String,
  tld: Schema.String,
  available: Schema.Boolean,
  status: Schema.String.annotations({
    description: "Listing status: active, pending (order in progress), sold, withdrawn"
  }),
  bin_price_cents: Cents,
  floor_price_cents: Cents,
  currency: Schema.String,
  reserved: Schema.Boolean.annotations({ description: "A live quote of another partner holds the domain" }),
  description: Schema.NullOr(Schema.String),
  listed_at: Schema.String.annotations({ description: "RFC 3339" })
}) {}

export class Availability extends Schema.Class<Availability>("PartnerAvailability")({
  domain: Schema.String,
  available: Schema.Boolean,
  price_cents: Cents.annotations({ description: "Buy-now price in USD cents when available, else null" }),
  currency: Schema.String
}) {}

export class Pricing extends Schema.Class<Pricing>("PartnerPricing")({
  domain: Schema.String,
  bin_price_cents: Cents,
  floor_price_cents: Cents,
  currency: Schema.String
}) {}

const DomainQuery = Schema.String.annotations({ description: "A domain name (Unicode or A-label)" })

export class PartnerInventoryApi extends HttpApiGroup.make("partnerInventory")
  .add(
    HttpApiEndpoint.get("search", "/api/partner/v1/domains/search")
      .setUrlParams(
        Schema.Struct({ q: Schema.String.annotations({ description: "Free text or a domain, 1–100 characters" }) })
      )
      .addSuccess(SearchResponse)
      .addError(errorWire(MalformedParameter))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Search the inventory (hybrid semantic + keyword)")
      .annotate(
        OpenApi.Description,
        "At most 5 relevant domains of the credential's inventory, best first. No paging: not a bulk export."
      )
      .pipe(requiresScope("search"), documentedAt("/docs/partner.md#search"))
  )
  .add(
    HttpApiEndpoint.get("domain")`/api/partner/v1/domains/${HttpApiSchema.param("name", Schema.String)}`
      .addSuccess(DomainDetail)
      .addError(errorWire(MalformedDomain))
      .addError(errorWire(DomainNotListed))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "A listed domain's price, availability and metadata. `name` may be an A-label or its Unicode form; 400 when it is not a domain name, 404 when it is not listed. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Single-domain detail: price, availability, metadata")
      .pipe(requiresScope("search"), documentedAt("/docs/partner.md#domain-detail"))
  )
  .add(
    HttpApiEndpoint.get("availability", "/api/partner/v1/availability")
      .setUrlParams(Schema.Struct({ domain: DomainQuery }))
      .addSuccess(Availability)
      .addError(errorWire(MalformedDomain))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Whether a domain can be bought now, with its buy-now price when it can. An unlisted domain is not an error: 200 with `available: false`. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Yes/no plus price; unlisted domains answer 200 with available false")
      .pipe(requiresScope("search"), documentedAt("/docs/partner.md#availability"))
  )
  .add(
    HttpApiEndpoint.get("pricing", "/api/partner/v1/pricing")
      .setUrlParams(Schema.Struct({ domain: DomainQuery }))
      .addSuccess(Pricing)
      .addError(errorWire(MalformedDomain))
      .addError(errorWire(DomainNotListed))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "The buy-now price and the floor of one listed domain, in integer cents with the currency. 404 when the domain is not listed. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Buy-now and floor price of one listed domain; 404 when unlisted")
      .pipe(requiresScope("search"), documentedAt("/docs/partner.md#pricing"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: inventory")
  .annotate(
    OpenApi.Description,
    "HMAC-signed (see docs/partner.md). Scope: search. The credential's environment selects the inventory."
  )
{}
