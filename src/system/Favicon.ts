/**
 * `GET /favicon.ico`, beside the HttpApi (not in the OpenAPI document): browsers ask for it on
 * every page (the docs, the checkout and brokerage pages). The service has no icon, so the answer
 * is 204 No Content, cacheable for a day, instead of a 404 logged per page view. No auth and no
 * rate limit: the route is no HttpApi operation, so neither middleware sees it; it reads nothing.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"

const noIcon = HttpServerResponse.empty({
  status: 204,
  headers: { "cache-control": "public, max-age=86400, immutable" }
})

export const FaviconRouteLive = HttpApiBuilder.Router.use((router) =>
  router.get("/favicon.ico", Effect.succeed(noIcon))
)
