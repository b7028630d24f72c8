/**
 * Catalogue endpoints: TLD prices and TLD registration requirements.
 *
 *   GET /api/pricing/tld?tld=com&op=register   → {tld, op, priceCents}   (legacy error shape)
 *   GET /api/tlds/{tld}/metadata               → TldMetadata            (typed errors)
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt, rateLimited } from "../platform/http/ApiAnnotations.js"
import { BadRequest, errorWire, LegacyBadRequest, legacyErrorWire, RateLimited } from "../platform/http/Errors.js"
import { policy } from "../platform/http/RateLimit.js"
import { InvalidPriceTld, InvalidTld, TldNotFound } from "./Errors.js"
import { PRICE_OPS } from "./PriceCsv.js"
import { TldMetadata } from "./TldMetadata.js"

export const limits = {
  pricing: policy("pricing_tld", 120, 60),
  metadata: policy("tld_metadata", 120, 60)
} as const

export const PriceOpParam = Schema.Literal(...PRICE_OPS).annotations({
  description: "Lifecycle operation",
  title: "PriceOp"
})

/** A plain struct (not a class): the hottest response of the service skips class construction. */
export const TldPrice = Schema.Struct({
  tld: Schema.String.annotations({
    description: "The TLD as asked, normalised (lowercase, no leading dot)",
    examples: ["com"]
  }),
  op: Schema.String.annotations({ description: "transfer | register | renew | restore", examples: ["register"] }),
  priceCents: Schema.NullOr(Schema.Int).annotations({
    description: "Price in USD cents for one year; null when the TLD/op combination is unsupported",
    examples: [1299]
  })
}).annotations({ identifier: "TldPrice", description: "Price of one lifecycle operation of a TLD" })
export type TldPrice = typeof TldPrice.Type

/** The query of GET /api/pricing/tld (batch's `tld_registration_price` decodes its params with it too). */
export const TldPriceParams = Schema.Struct({
  tld: Schema.String.annotations({ description: "The TLD, e.g. com (a leading dot is ignored)" }),
  op: Schema.optionalWith(PriceOpParam, { default: () => "transfer" as const })
})

export const TldParam = HttpApiSchema.param(
  "tld",
  Schema.String.annotations({ description: "The TLD without a leading dot, e.g. com or co.uk" })
)

export class CatalogueApi extends HttpApiGroup.make("catalogue")
  .add(
    HttpApiEndpoint.get("getTldPrice", "/api/pricing/tld")
      .setUrlParams(TldPriceParams)
      .addSuccess(TldPrice)
      .addError(LegacyBadRequest)
      .addError(legacyErrorWire(InvalidPriceTld))
      .addError(RateLimited)
      .annotate(OpenApi.Summary, "Price of a TLD for a lifecycle operation")
      .annotate(
        OpenApi.Description,
        "USD cents for one year. New-registration pricing is never gated by sign-in. 120 requests/min per IP."
      )
      .pipe(rateLimited(limits.pricing), documentedAt("/docs/catalogue.md#tld-price"))
  )
  .add(
    HttpApiEndpoint.get("getTldMetadata")`/api/tlds/${TldParam}/metadata`
      .addSuccess(TldMetadata)
      .addError(errorWire(TldNotFound))
      .addError(errorWire(InvalidTld))
      .addError(RateLimited)
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Registration requirements of a TLD")
      .annotate(
        OpenApi.Description,
        "Registry rules (periods, contacts, nameservers, features) resolved from live registry data. 120 requests/min per IP."
      )
      .pipe(rateLimited(limits.metadata), documentedAt("/docs/catalogue.md#tld-metadata"))
  )
  .annotate(OpenApi.Title, "Catalogue")
  .annotate(OpenApi.Description, "TLD prices and registration requirements")
{}
