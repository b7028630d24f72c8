/** Handlers of the catalogue endpoints: HTTP in, service calls, HTTP out. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Api } from "../app/Api.js"
import { LegacyBadRequestError } from "../platform/Errors.js"
import { enforce } from "../platform/RateLimit.js"
import { limits } from "./Api.js"
import { Catalogue } from "./Catalogue.js"
import { isTld, normalizeTld } from "./PriceCsv.js"

export const CatalogueHttpLive = HttpApiBuilder.group(Api, "catalogue", (handlers) =>
  Effect.gen(function*() {
    const catalogue = yield* Catalogue
    return handlers
      .handle("getTldPrice", ({ urlParams }) =>
        Effect.gen(function*() {
          yield* enforce(limits.pricing)
          const tld = normalizeTld(urlParams.tld)
          if (tld === "") {
            return yield* new LegacyBadRequestError({ code: "validation_error", message: "tld is required" })
          }
          if (!isTld(tld)) {
            return yield* new LegacyBadRequestError({
              code: "validation_error",
              message: `tld "${urlParams.tld}" is not a valid TLD`
            })
          }
          const price = yield* catalogue.getPrice(tld, urlParams.op)
          return { tld, op: urlParams.op, priceCents: Option.getOrNull(price) }
        }))
      .handle("getTldMetadata", ({ path }) =>
        Effect.gen(function*() {
          yield* enforce(limits.metadata)
          return yield* catalogue.metadataOf(path.tld)
        }))
  }))
