/** Handlers of the storefront pages: decode → one Search call → the rendered page. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Clock, Effect, Either, FiberRef } from "effect"
import { Api } from "../app/Api.js"
import { CurrentRequestId } from "../platform/Errors.js"
import { htmlResponse } from "../platform/Html.js"
import { enforce } from "../platform/RateLimit.js"
import { limits as searchLimits } from "../search/Api.js"
import { Search } from "../search/Search.js"
import { homePage, resultsPage, searchProblemPage, waitPage } from "./Pages.js"

const retryAfterOf = (details: unknown) => {
  const n = (details as { retry_after?: unknown } | undefined)?.retry_after
  return typeof n === "number" && n > 0 ? n : 60
}

export const StorefrontHttpLive = HttpApiBuilder.group(Api, "storefrontPages", (handlers) =>
  Effect.gen(function*() {
    const search = yield* Search
    return handlers
      .handle("home", () => Effect.succeed(htmlResponse(homePage())))
      .handle("searchPage", ({ urlParams }) =>
        Effect.gen(function*() {
          const startedAt = yield* Clock.currentTimeMillis
          const q = (Array.isArray(urlParams.q) ? urlParams.q[0] ?? "" : urlParams.q ?? "").trim()
          const admitted = yield* Effect.either(enforce(searchLimits.search))
          if (Either.isLeft(admitted)) {
            return htmlResponse(waitPage(q, retryAfterOf(admitted.left.details)), { status: 429 })
          }
          if (q === "") return htmlResponse(searchProblemPage("", "Type a domain name, for example yourname.com."))
          const plan = search.plan(q)
          if (Either.isLeft(plan)) {
            return htmlResponse(
              searchProblemPage(q, `“${q.slice(0, 253)}” is not a domain name: ${plan.left.message}`),
              { status: 400 }
            )
          }
          const requestId = yield* FiberRef.get(CurrentRequestId)
          // The page shows the buy-now price (public on /buy) and never the floor price.
          const rows = yield* search.rows(plan.right, { requestId, canSeeMarketPrices: true, startedAt })
          return htmlResponse(resultsPage(q, rows))
        }))
  }))
