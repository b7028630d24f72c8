/** Handlers of the search stream and keyed availability: HTTP in, Search/engine calls, HTTP out. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, type Context, Effect, FiberRef } from "effect"
import { Api } from "../app/Api.js"
import { AvailabilityEngine } from "../availability/Availability.js"
import { canSeeMarketPrices, CurrentViewer } from "../identity/Viewer.js"
import { centsToUsd } from "../market/View.js"
import { LegacyInvalidDomain } from "../platform/http/DomainInput.js"
import { CurrentRequestId } from "../platform/http/Errors.js"
import { KeyedAvailability } from "./Api.js"
import type { MarketPrices } from "./Rows.js"
import { Search } from "./Search.js"

/**
 * The NDJSON answer of a search of `q` with the given market prices: both doors of the stream use
 * it, the API (`POST /api/domain/search`, prices by the caller's scope) and the storefront's pages
 * (`GET /search/stream`, the buy-now price). A valid search's local lookups start now, its upstream
 * calls once the body is being sent; the rate limit was counted at the edge.
 */
export const searchResponse = (
  search: Context.Tag.Service<typeof Search>,
  q: string,
  marketPrices: MarketPrices,
  headers: Readonly<Record<string, string>> = {}
) =>
  Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const requestId = yield* FiberRef.get(CurrentRequestId)
    const { ndjson } = yield* Effect.flatMap(
      search.parse(q),
      (plan) => search.start(plan, { requestId, marketPrices, startedAt })
    )
    return HttpServerResponse.stream(ndjson, {
      contentType: "application/x-ndjson",
      headers: { "cache-control": "no-store", "x-accel-buffering": "no", ...headers }
    })
  })

export const SearchHttpLive = HttpApiBuilder.group(Api, "search", (handlers) =>
  Effect.gen(function*() {
    const search = yield* Search
    return handlers.handle("searchDomain", ({ headers, payload }) =>
      Effect.gen(function*() {
        const key = headers["idempotency-key"]
        const viewer = yield* CurrentViewer
        return yield* searchResponse(
          search,
          payload.q,
          canSeeMarketPrices(viewer) ? "all" : "none",
          key !== undefined ? { "idempotency-key": key } : {}
        )
      }))
  }))

export const KeyedAvailabilityHttpLive = HttpApiBuilder.group(Api, "developer", (handlers) =>
  Effect.gen(function*() {
    const engine = yield* AvailabilityEngine
    return handlers.handle("domainAvailable", ({ urlParams }) =>
      Effect.gen(function*() {
        const result = yield* engine.checkText(urlParams.domain).pipe(
          Effect.mapError((e) => LegacyInvalidDomain.of("domain", e, "whole-input"))
        )
        const listing = result.listing
        const locked = listing !== null && (listing.locked || listing.status === "pending")
        return new KeyedAvailability({
          domain: result.domain,
          available: result.state === "available" || result.state === "premium" ||
            (result.state === "for_sale" && !locked),
          locked,
          bin_price: listing !== null ? centsToUsd(listing.bin_price_cents) : null,
          floor_price: listing !== null ? centsToUsd(listing.floor_price_cents) : null
        })
      }))
  }))
