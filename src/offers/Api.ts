/**
 * Offers on marketplace listings (docs/market.md#make-an-offer).
 *
 *   POST /api/market/offers {domain, amount_cents, email} → 201 {id, domain, amount_cents, status: "pending", created_at}
 *
 * Public and rate limited per IP. The answer never depends on the listing's floor price.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Email } from "../checkout/Api.js"
import { ListingNotFound } from "../market/Errors.js"
import { documentedAt, rateLimited } from "../platform/http/ApiAnnotations.js"
import { InvalidDomain } from "../platform/http/DomainInput.js"
import { BadRequest, errorWire, RateLimited } from "../platform/http/Errors.js"
import { policy } from "../platform/http/RateLimit.js"
import { OfferStatus } from "./Repo.js"

/** Per-IP limit of new offers (the API and the pages' form share it): RATE_LIMITS `market_offers`. */
export const limits = {
  offers: policy("market_offers", 10, 600)
} as const

/** Largest offer: $1,000,000,000.00. */
export const MAX_OFFER_CENTS = 100_000_000_000

export const OfferRequest = Schema.Struct({
  domain: Schema.String.pipe(Schema.maxLength(253)).annotations({
    description: "A domain listed in the marketplace",
    examples: ["example.com"]
  }),
  amount_cents: Schema.Int.pipe(Schema.between(1, MAX_OFFER_CENTS)).annotations({
    description: "The offer in the listing's currency, in cents",
    examples: [150_000]
  }),
  email: Email.annotations({
    description: "Where the seller's answer (and a checkout link) is sent",
    examples: ["buyer@example.org"]
  })
}).annotations({ examples: [{ domain: "example.com", amount_cents: 150_000, email: "buyer@example.org" }] })

export class Offer extends Schema.Class<Offer>("Offer")({
  id: Schema.String.annotations({ description: "Offer id (`ofr_…`)", examples: ["ofr_01jd3k9x0a1b2c3d4e5f6g7h8j"] }),
  domain: Schema.String.annotations({ description: "A-label form", examples: ["example.com"] }),
  amount_cents: Schema.Int.annotations({ examples: [150_000] }),
  status: OfferStatus.annotations({
    description: "pending (new offers always) → accepted | countered (a checkout link was sent) | declined"
  }),
  created_at: Schema.String.annotations({ description: "RFC 3339 UTC", examples: ["2026-01-09T14:02:11.000Z"] })
}) {}

export class OffersApi extends HttpApiGroup.make("marketOffers")
  .add(
    HttpApiEndpoint.post("makeOffer", "/api/market/offers")
      .setPayload(OfferRequest)
      .addSuccess(Offer, { status: 201 })
      .addError(errorWire(InvalidDomain))
      .addError(errorWire(ListingNotFound))
      .addError(RateLimited)
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Make an offer on a listed domain")
      .annotate(
        OpenApi.Description,
        "Leaves an amount and an e-mail for the seller of a marketplace listing. The offer is always `pending` at first, " +
          "whatever its amount (the floor price is never revealed); the seller accepts, counters or declines it, and the " +
          "buyer receives the answer by e-mail, with a checkout link at the agreed price when accepted or countered."
      )
      .pipe(rateLimited(limits.offers), documentedAt("/docs/market.md#make-an-offer"))
  )
  .annotate(OpenApi.Title, "Marketplace offers")
  .annotate(
    OpenApi.Description,
    "Public, no credential, rate limited per client: offers on marketplace listings (docs/market.md#make-an-offer)."
  )
{}
