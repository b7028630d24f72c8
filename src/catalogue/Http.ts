/** Handlers of the catalogue endpoints: HTTP in, service calls, HTTP out. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { Catalogue } from "./Catalogue.js"

export const CatalogueHttpLive = HttpApiBuilder.group(Api, "catalogue", (handlers) =>
  Effect.gen(function*() {
    const catalogue = yield* Catalogue
    return handlers
      .handle("getTldPrice", ({ urlParams }) => catalogue.tldPrice(urlParams.tld, urlParams.op))
      .handle("getTldMetadata", ({ path }) => catalogue.metadataOf(path.tld))
  }))
