/** Handlers of the search stream and keyed availability: HTTP in, Search/engine calls, HTTP out. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Either, FiberRef } from "effect"
import { Api } from "../app/Api.js"
import { AvailabilityEngine } from "../availability/Availability.js"
import { canSeeMarketPrices, CurrentViewer } from "../identity/Viewer.js"
import { centsToUsd } from "../market/View.js"
import { LegacyInvalidDomain } from "../platform/http/DomainInput.js"
import { CurrentRequestId } from "../platform/http/Errors.js"
import { enforce } from "../platform/http/RateLimit.js"
import { KeyedAvailability, limits } from "./Api.js"
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
        // A valid search's local lookups start now, alongside the rate-limit check (its upstream
        // calls wait for the body to be sent); a refused request cancels them. A name that is not
        // one is reported after the rate-limit check, so it counts like any other request.
        const started = yield* Effect.either(
          Effect.flatMap(
            search.parse(payload.q),
            (plan) => search.start(plan, { requestId, canSeeMarketPrices: canSeeMarketPrices(viewer), startedAt })
          )
        )
        yield* enforce(limits.search).pipe(
          Effect.onError(() => Either.isRight(started) ? started.right.cancel : Effect.void)
        )
        const { ndjson } = yield* started
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
