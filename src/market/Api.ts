/**
 * Marketplace (aftermarket) listings.
 *
 *   GET /api/market/listings            → {items, page}   browse: filters, sorts, offset or cursor paging
 *   GET /api/market/listings/{domain}   → one listing     (the `url` of listings and search rows)
 *
 * Buy-now and floor prices are null unless the caller sends a bearer token with `pricing:read`.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { LISTING_SORTS } from "../domain/ListingOrder.js"
import { OptionalBearer } from "../identity/Viewer.js"
import { documentedAt, rateLimited } from "../platform/http/ApiAnnotations.js"
import { InvalidDomain } from "../platform/http/DomainInput.js"
import { BadRequest, errorWire, Forbidden, RateLimited } from "../platform/http/Errors.js"
import { InvalidCursorWire } from "../platform/http/PageCursor.js"
import { policy } from "../platform/http/RateLimit.js"
import { InvalidTldFilter, ListingNotFound } from "./Errors.js"
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "./Market.js"

export const limits = {
  listings: policy("market_listings", 300, 60)
} as const

const UsdOrNull = Schema.NullOr(Schema.Number).annotations({
  description:
    "USD amount (e.g. 1250.5); null unless the caller's bearer token has scope pricing:read, or when the listing has none"
})

export class MarketListing extends Schema.Class<MarketListing>("MarketListing")({
  id: Schema.String.annotations({ description: "Listing id (`lst_…`)", examples: ["lst_01jd3k9x0a1b2c3d4e5f6g7h8j"] }),
  domain: Schema.String.annotations({ description: "A-label (punycode) form", examples: ["example.com"] }),
  domain_unicode: Schema.String.annotations({ description: "Unicode form for display", examples: ["example.com"] }),
  tld: Schema.String.annotations({ description: "Public suffix, e.g. com or co.uk", examples: ["com"] }),
  bin_price: UsdOrNull.annotations({
    description: "Buy-now price in USD; null without pricing:read or when offer-only"
  }),
  floor_price: UsdOrNull.annotations({ description: "Lowest acceptable offer in USD; null without pricing:read" }),
  currency: Schema.String.annotations({ examples: ["USD"] }),
  listed_at: Schema.String.annotations({ description: "RFC 3339 UTC", examples: ["2026-01-09T14:02:11.000Z"] }),
  locked: Schema.Boolean.annotations({
    description: "A sale is pending: the domain cannot be bought right now",
    examples: [false]
  }),
  demo: Schema.Boolean.annotations({
    description: "Part of the demo catalogue of an embedded installation",
    examples: [false]
  }),
  description: Schema.NullOr(Schema.String),
  url: Schema.String.annotations({
    description: "This listing's own resource",
    examples: ["https://marketplace.example.com/api/market/listings/example.com"]
  })
}) {}

export class Page extends Schema.Class<Page>("Page")({
  limit: Schema.Int.annotations({ examples: [24] }),
  offset: Schema.Int.annotations({ description: "Offset of this page; 0 on a page fetched by cursor", examples: [0] }),
  total: Schema.Int.annotations({
    description: "Rows matching the filters (may lag writes by a few seconds)",
    examples: [1]
  }),
  has_more: Schema.Boolean.annotations({ examples: [false] }),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description:
      "Opaque cursor of the next page (also on offset pages); null on the last page. Bound to the filters and sort."
  })
}) {}

export class ListingPage extends Schema.Class<ListingPage>("ListingPage")({
  items: Schema.Array(MarketListing),
  page: Page
}) {}

const IntFromString = (description: string) => Schema.NumberFromString.pipe(Schema.int()).annotations({ description })

export const ListingsParams = Schema.Struct({
  limit: Schema.optionalWith(
    IntFromString(`Page size, 1 to ${MAX_PAGE_LIMIT}`).pipe(Schema.between(1, MAX_PAGE_LIMIT)),
    { default: () => DEFAULT_PAGE_LIMIT }
  ),
  offset: Schema.optionalWith(IntFromString("Rows to skip (ignored when cursor is sent)").pipe(Schema.nonNegative()), {
    default: () => 0
  }),
  cursor: Schema.optional(Schema.String.annotations({
    description: "page.next_cursor of a previous page with the same filters and sort; wins over offset"
  })),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(253)).annotations({ description: "Substring of the domain" })),
  tld: Schema.optional(
    Schema.String.pipe(Schema.maxLength(63)).annotations({
      description: "Only this TLD / public suffix, e.g. com or co.uk"
    })
  ),
  max: Schema.optional(
    Schema.NumberFromString.pipe(Schema.finite(), Schema.nonNegative()).annotations({
      description:
        "Maximum buy-now price in USD. Needs a bearer token with scope pricing:read (403 insufficient_scope without it)"
    })
  ),
  sort: Schema.optionalWith(Schema.Literal(...LISTING_SORTS), { default: () => "newest" as const })
})

export const DomainParam = HttpApiSchema.param(
  "domain",
  Schema.String.annotations({ description: "The listed domain" })
)

export class MarketApi extends HttpApiGroup.make("market")
  .add(
    HttpApiEndpoint.get("listListings", "/api/market/listings")
      .setUrlParams(ListingsParams)
      .addSuccess(ListingPage)
      .addError(InvalidCursorWire)
      .addError(errorWire(InvalidTldFilter))
      .addError(RateLimited)
      .addError(BadRequest)
      .addError(Forbidden)
      .middleware(OptionalBearer)
      .annotate(OpenApi.Summary, "Browse marketplace listings")
      .annotate(
        OpenApi.Description,
        "Filters q (substring), tld, max (USD); sort newest | price_asc | price_desc (id as tie-breaker). " +
          "Page with offset, or follow page.next_cursor until it is null; a cursor used with other filters or another sort is 400 invalid_cursor. " +
          "Prices are null unless the bearer token has scope pricing:read; the max filter needs that scope too (403 insufficient_scope). " +
          "The price sorts are open to everyone: they reveal the order of prices, never amounts (cursors are encrypted)."
      )
      .pipe(rateLimited(limits.listings), documentedAt("/docs/market.md#browse-listings"))
  )
  .add(
    HttpApiEndpoint.get("getListing")`/api/market/listings/${DomainParam}`
      .addSuccess(MarketListing)
      .addError(errorWire(InvalidDomain))
      .addError(errorWire(ListingNotFound))
      .addError(RateLimited)
      .addError(BadRequest)
      .middleware(OptionalBearer)
      .annotate(OpenApi.Summary, "One marketplace listing")
      .annotate(OpenApi.Description, "The listing of a domain currently for sale; 404 when it is not listed.")
      .pipe(rateLimited(limits.listings), documentedAt("/docs/market.md#one-listing"))
  )
  .annotate(OpenApi.Title, "Marketplace")
  .annotate(OpenApi.Description, "Aftermarket listings")
{}
