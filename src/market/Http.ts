/** Handlers of the marketplace endpoints: HTTP in, Market calls, masked listings out. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import type { ListingFilters } from "../domain/ListingOrder.js"
import { requireScopeForParameters } from "../identity/Bearer.js"
import { canSeeMarketPrices, CurrentViewer, PRICING_READ } from "../identity/Viewer.js"
import { AppConfig } from "../platform/Config.js"
import { domainInput } from "../platform/http/DomainInput.js"
import { ListingPage, MarketListing, Page } from "./Api.js"
import { tldFilter } from "./Errors.js"
import { Market } from "./Market.js"
import { toListingItem } from "./View.js"

export const MarketHttpLive = HttpApiBuilder.group(Api, "market", (handlers) =>
  Effect.gen(function*() {
    const market = yield* Market
    const config = yield* AppConfig
    return handlers
      .handle("listListings", ({ urlParams }) =>
        Effect.gen(function*() {
          // A price filter answers "is the hidden price ≤ x?": bisection would reveal every masked price.
          yield* requireScopeForParameters(PRICING_READ, [["max", urlParams.max !== undefined]])
          const canSee = canSeeMarketPrices(yield* CurrentViewer)
          const tld = urlParams.tld === undefined ? undefined : yield* tldFilter(urlParams.tld)
          const q = urlParams.q?.trim().normalize("NFC").toLowerCase()
          const filters: ListingFilters = {
            environment: "live",
            q: q === "" ? undefined : q,
            tld,
            maxCents: urlParams.max === undefined ? undefined : Math.round(urlParams.max * 100)
          }
          const result = yield* market.browse({
            filters,
            sort: urlParams.sort,
            limit: urlParams.limit,
            offset: urlParams.offset,
            cursor: urlParams.cursor
          })
          return new ListingPage({
            items: result.rows.map((r) => new MarketListing(toListingItem(r, canSee, config.baseUrl))),
            page: new Page(result.page)
          })
        }))
      .handle("getListing", ({ path }) =>
        Effect.gen(function*() {
          const canSee = canSeeMarketPrices(yield* CurrentViewer)
          const name = yield* domainInput("domain", path.domain, "whole-input")
          const row = yield* market.listedListing("live", name.ascii)
          return new MarketListing(toListingItem(row, canSee, config.baseUrl))
        }))
  }))
