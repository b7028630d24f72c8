/** Handlers of the search stream and keyed availability: HTTP in, Search/engine calls, HTTP out. */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Either, FiberRef } from "effect"
import { AvailabilityEngine } from "../availability/Availability.js"
import { Api } from "../app/Api.js"
import { canSeeMarketPrices, CurrentViewer } from "../identity/Viewer.js"
import { BadRequestError, CurrentRequestId, LegacyBadRequestError } from "../platform/Errors.js"
import { isValidKey } from "../platform/Idempotency.js"
import { enforce } from "../platform/RateLimit.js"
import { centsToUsd } from "../market/View.js"
import { KeyedAvailability, limits } from "./Api.js"
import { Search } from "./Search.js"

export const SearchHttpLive = HttpApiBuilder.group(Api, "search", (handlers) =>
  Effect.gen(function*() {
    const search = yield* Search
    return handlers.handle("searchDomain", ({ headers, payload }) =>
      Effect.gen(function*() {
        const startedAt = yield* Clock.currentTimeMillis
        yield* enforce(limits.search)
        const key = headers["idempotency-key"]
        if (key !== undefined && !isValidKey(key)) {
          return yield* new BadRequestError({
            code: "invalid_idempotency_key",
            message: "Idempotency-Key must be 1 to 255 visible ASCII characters",
            details: { field: "Idempotency-Key" }
          })
        }
        const plan = search.plan(payload.q)
        if (Either.isLeft(plan)) {
          return yield* new BadRequestError({
            code: "invalid_domain",
            message: `q is not a valid domain name: ${plan.left.message}`,
            details: { field: "q", problem: plan.left.problem }
          })
        }
        const viewer = yield* CurrentViewer
        const requestId = yield* FiberRef.get(CurrentRequestId)
        const body = search.ndjson(plan.right, { requestId, canSeeMarketPrices: canSeeMarketPrices(viewer), startedAt })
        return HttpServerResponse.stream(body, {
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
          Effect.catchTag("InvalidDomainName", (e) =>
            new LegacyBadRequestError({ code: "invalid_domain", message: `"${urlParams.domain}" is not a valid domain name: ${e.message}` }))
        )
        const listing = result.listing
        const locked = listing !== null && (listing.locked || listing.status === "pending")
        return new KeyedAvailability({
          domain: result.domain,
          available: result.state === "available" || result.state === "premium" || (result.state === "for_sale" && !locked),
          locked,
          bin_price: listing !== null ? centsToUsd(listing.bin_price_cents) : null,
          floor_price: listing !== null ? centsToUsd(listing.floor_price_cents) : null
        })
      }))
  }))
