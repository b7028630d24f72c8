/**
 * Partner inventory (scope `search`): search, domain detail, availability and pricing over the
 * inventory of the credential's environment (live or sandbox).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt } from "../../platform/http/ApiAnnotations.js"
import { BadRequest, errorWire, InternalError } from "../../platform/http/Errors.js"
import { PartnerAuth, requiresScope } from "../Auth.js"
import { MalformedDomain, MalformedParameter } from "../Errors.js"
import { DomainNotListed } from "./Errors.js"

const Cents = Schema.NullOr(Schema.Int).annotations({ description: "USD cents; null when not offered" })
// The examples show one sandbox listing (docs/partner.md, Search).
const Domain = Schema.String.annotations({ examples: ["amberharbor-sandbox.app"] })
const Tld = Schema.String.annotations({ examples: ["app"] })
const Currency = Schema.String.annotations({ examples: ["USD"] })
const BinCents = Cents.annotations({ examples: [1284000] })
const FloorCents = Cents.annotations({ examples: [770400] })

export class SearchResultItem extends Schema.Class<SearchResultItem>("PartnerSearchResult")({
  domain: Domain.annotations({ description: "A-label form" }),
  tld: Tld,
  bin_price_cents: BinCents,
  floor_price_cents: FloorCents,
  currency: Currency,
  available: Schema.Boolean.annotations({ description: "Listed, not locked and not reserved or sold to someone else" }),
  score: Schema.Number.annotations({
    description: "Relevance (reciprocal rank fusion of keyword and semantic rankings), 0–1",
    examples: [0.5]
  })
}) {}

export class SearchResponse extends Schema.Class<SearchResponse>("PartnerSearchResponse")({
  query: Schema.String.annotations({ examples: ["harbor"] }),
  count: Schema.Int.annotations({ examples: [1] }),
  results: Schema.Array(SearchResultItem).annotations({ description: "At most 5, best first" })
}) {}

export class DomainDetail extends Schema.Class<DomainDetail>("PartnerDomainDetail")({
  domain: Domain,
  domain_unicode: Domain,
  tld: Tld,
  available: Schema.Boolean,
  status: Schema.String.annotations({
    description: "Listing status: active, pending (order in progress), sold, withdrawn",
    examples: ["active"]
  }),
  bin_price_cents: BinCents,
  floor_price_cents: FloorCents,
  currency: Currency,
  reserved: Schema.Boolean.annotations({
    description: "A live quote of another partner holds the domain",
    examples: [false]
  }),
  description: Schema.NullOr(Schema.String).annotations({
    examples: ["Short .app name for a harbour logistics product"]
  }),
  listed_at: Schema.String.annotations({ description: "RFC 3339", examples: ["2026-01-05T09:30:00.000Z"] })
}) {}

export class Availability extends Schema.Class<Availability>("PartnerAvailability")({
  domain: Domain,
  available: Schema.Boolean,
  price_cents: BinCents.annotations({ description: "Buy-now price in USD cents when available, else null" }),
  currency: Currency
}) {}

export class Pricing extends Schema.Class<Pricing>("PartnerPricing")({
  domain: Domain,
  bin_price_cents: BinCents,
  floor_price_cents: FloorCents,
  currency: Currency
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
