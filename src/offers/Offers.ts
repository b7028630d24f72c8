/**
 * Offers on marketplace listings (docs/market.md#make-an-offer). A buyer leaves an amount and an
 * e-mail on a listed name (with or without a buy-now price); the seller side (operator CLI now)
 * accepts, counters or declines it, once. Accepting or countering opens a checkout session at
 * that price (Checkout.openForOffer, the one checkout) and sends its link to the buyer's e-mail
 * (the notifications log, the development mailbox), in the same transaction as the decision.
 *
 * Contract: nothing a buyer sees depends on the listing's floor price; every new offer is
 * `pending`, whatever its amount.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option } from "effect"
import { Checkout } from "../checkout/Checkout.js"
import { moneyInWords } from "../domain/TimeWords.js"
import { Market } from "../market/Market.js"
import { Notifications } from "../notifications/Notifications.js"
import { transactionOf } from "../platform/db/SqlTransaction.js"
import { makeId } from "../platform/Ids.js"
import { OfferClosed, OfferNotFound } from "./Errors.js"
import { type OfferRow, OffersRepo, type OfferStatus } from "./Repo.js"

export interface NewOfferInput {
  /** A-label form, already parsed. */
  readonly domain: string
  readonly amountCents: number
  readonly email: string
}

export type Decision =
  | { readonly _tag: "accept" }
  | { readonly _tag: "counter"; readonly amountCents: number }
  | { readonly _tag: "decline" }

const make = Effect.gen(function*() {
  const repo = yield* OffersRepo
  const market = yield* Market
  const checkout = yield* Checkout
  const notifications = yield* Notifications
  const transaction = transactionOf(yield* SqlClient.SqlClient)

  /** A buyer's offer on a live listing that shows as for sale; ListingNotFound otherwise. */
  const create = (input: NewOfferInput) =>
    Effect.gen(function*() {
      const listing = yield* market.listedListing("live", input.domain)
      return yield* repo.insert({
        id: makeId("ofr"),
        environment: "live",
        listing_id: listing.id,
        domain: listing.domain,
        amount_cents: input.amountCents,
        currency: listing.currency,
        email: input.email
      })
    })

  const list = (status: OfferStatus | null) => repo.list(status)

  /**
   * The seller's decision on a pending offer. Accept or counter: a checkout session at the agreed
   * price and its link to the buyer; decline: a note to the buyer. The checkout's refusals (the
   * name was sold, is locked or held) roll the decision back.
   */
  const decide = (id: string, decision: Decision) =>
    transaction(Effect.gen(function*() {
      const locked = yield* repo.lock(id)
      if (Option.isNone(locked)) return yield* OfferNotFound.of(id)
      const offer = locked.value
      if (offer.status !== "pending") return yield* OfferClosed.of(id, offer.status)
      if (decision._tag === "decline") {
        const row = yield* repo.decide({ id, status: "declined", counter_cents: null, checkout_session_id: null })
        yield* notifications.notifyEmail({
          email: offer.email,
          kind: "offer.declined",
          subject: `Your offer on ${offer.domain}`,
          message: `The seller declined your offer of ${
            moneyInWords(offer.amount_cents, offer.currency)
          } on ${offer.domain}.`,
          key: `offer:${id}:declined`
        })
        return { offer: row, checkoutUrl: null }
      }
      const priceCents = decision._tag === "accept" ? offer.amount_cents : decision.amountCents
      const session = yield* checkout.openForOffer(offer.domain, priceCents, offer.email)
      const checkoutUrl = checkout.checkoutUrl(session)
      const status = decision._tag === "accept" ? "accepted" : "countered"
      const row = yield* repo.decide({
        id,
        status,
        counter_cents: decision._tag === "counter" ? decision.amountCents : null,
        checkout_session_id: session.id
      })
      const price = moneyInWords(priceCents, offer.currency)
      yield* notifications.notifyEmail({
        email: offer.email,
        kind: `offer.${status}`,
        subject: `Your offer on ${offer.domain}`,
        message: decision._tag === "accept"
          ? `The seller accepted your offer of ${price} on ${offer.domain}. Buy it here: ${checkoutUrl}`
          : `The seller answered your offer on ${offer.domain} with ${price}. Buy it at that price here: ${checkoutUrl}`,
        key: `offer:${id}:${status}`
      })
      return { offer: row, checkoutUrl: checkoutUrl as string | null }
    }))

  return { create, list, decide } as const
})

export class Offers
  extends Effect.Service<Offers>()("app/Offers", { effect: make, dependencies: [OffersRepo.Default] })
{
  /** Kept for the existing wiring (src/offers/Layer.ts). */
  static readonly Live = Offers.Default
}

export type { OfferRow }
