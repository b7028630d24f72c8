/** Handlers of the search stream and keyed availability: HTTP in, Search/engine calls, HTTP out. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, FiberRef } from "effect"
import { Api } from "../app/Api.js"
import { AvailabilityEngine } from "../availability/Availability.js"
import { canSeeMarketPrices, CurrentViewer } from "../identity/Viewer.js"
import { centsToUsd } from "../market/View.js"
import { LegacyInvalidDomain } from "../platform/http/DomainInput.js"
import { CurrentRequestId } from "../platform/http/Errors.js"
import { KeyedAvailability } from "./Api.js"
import { Search } from "./Search.js"

export const SearchHttpLive = HttpApiBuilder.group(Api, "search", (handlers) =>
  Effect.gen(function*() {
    const search = yield* Search
    return handlers.handle("searchDomain", ({ headers, payload }) =>
      Effect.gen(function*() {
        const startedAt = yield* Clock.currentTimeMillis
        const key = headers["idempotency-key"]
        const viewer = yield* CurrentViewer
        const requestId = yield* FiberRef.get(CurrentRequestId)
        // The rate limit was counted at the edge (bad input counts like any request); a valid
        // search's local lookups start now, its upstream calls once the body is being sent.
        const { ndjson } = yield* Effect.flatMap(
          search.parse(payload.q),
          (plan) =>
            search.start(plan, { requestId, marketPrices: canSeeMarketPrices(viewer) ? "all" : "none", startedAt })
        )
        return HttpServerResponse.stream(ndjson, {
          contentType: "application/x-ndjson",
          headers: {
            "cache-control": "no-store",
            "x-accel-buffering": "no",
            ...(key !== undefined ? { "idempotency-key": key } : {})
          }
        })
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
