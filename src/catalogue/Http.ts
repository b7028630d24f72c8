/** Handlers of the catalogue endpoints: HTTP in, service calls, HTTP out. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { enforce } from "../platform/http/RateLimit.js"
import { limits } from "./Api.js"
import { Catalogue } from "./Catalogue.js"

export const CatalogueHttpLive = HttpApiBuilder.group(Api, "catalogue", (handlers) =>
  Effect.gen(function*() {
    const catalogue = yield* Catalogue
    return handlers
      .handle("getTldPrice", ({ urlParams }) =>
        Effect.zipRight(enforce(limits.pricing), catalogue.tldPrice(urlParams.tld, urlParams.op)))
      .handle("getTldMetadata", ({ path }) =>
        Effect.gen(function*() {
          yield* enforce(limits.metadata)
          return yield* catalogue.metadataOf(path.tld)
        }))
  }))
