/**
 * The market's public operation (../operations/Operation.ts) for the agent tools: one listing,
 * the rule of `GET /api/market/listings/{domain}` (the same `Market.listedListing` and view;
 * prices only for a bearer token with pricing:read).
 */
import { Effect, Schema } from "effect"
import { canSeeMarketPrices } from "../identity/Viewer.js"
import { operation } from "../operations/Operation.js"
import { AppConfig } from "../platform/Config.js"
import { domainInput } from "../platform/http/DomainInput.js"
import { limits, MarketListing } from "./Api.js"
import { Market } from "./Market.js"
import { toListingItem } from "./View.js"

export const ListingInput = Schema.Struct({
  domain: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)).annotations({
    description: "A domain listed for sale on the marketplace",
    examples: ["example.com"]
  })
})

export const getListing = operation({
  name: "get_listing",
  title: "Read a listing",
  description:
    "One marketplace listing (a domain for sale): buy-now and floor prices, description, whether a sale is under way. " +
    "Same answer as GET /api/market/listings/{domain}; prices need a bearer token with pricing:read.",
  endpoint: "GET /api/market/listings/{domain}",
  input: ListingInput,
  output: MarketListing,
  rateLimit: limits.listings,
  run: (input, who) =>
    Effect.gen(function*() {
      const name = yield* domainInput("domain", input.domain, "field-input")
      const config = yield* AppConfig
      const row = yield* (yield* Market).listedListing("live", name.ascii)
      return new MarketListing(toListingItem(row, canSeeMarketPrices(who.viewer), config.baseUrl))
    }),
  summarize: (item) =>
    `${item.domain_unicode} is for sale` +
    (item.bin_price !== null ? `: buy now $${item.bin_price.toFixed(2)}` : " (price shown with a pricing:read token)") +
    (item.locked ? "; a sale is under way" : "")
})
