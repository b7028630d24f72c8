/**
 * Operator commands of offers (the seller side until the console):
 *
 *   offers list [--status pending|accepted|countered|declined] [--json]
 *   offers accept OFFER_ID [--json]                 → a checkout link at the offer's amount, sent to the buyer
 *   offers counter OFFER_ID --amount-cents N [--json] → a checkout link at N, sent to the buyer
 *   offers decline OFFER_ID [--json]
 *
 * The operator's list shows each offer against the listing as the buyer cannot: amounts only.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { cliAction } from "../audit/Actor.js"
import { abort, json, print } from "../cli/Output.js"
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import { MAX_OFFER_CENTS } from "./Api.js"
import { type Decision, type OfferRow, Offers } from "./Offers.js"
import { OFFER_STATUSES } from "./Repo.js"

const offerId = Args.text({ name: "OFFER_ID" }).pipe(Args.withDescription("The offer id (ofr_…)"))

const status = Options.choice("status", OFFER_STATUSES).pipe(
  Options.optional,
  Options.withDescription("Only offers in this status")
)

const amountCents = Options.integer("amount-cents").pipe(
  Options.withDescription("The counter price in cents of the listing's currency")
)

const view = (o: OfferRow, checkoutUrl?: string | null) => ({
  id: o.id,
  domain: o.domain,
  amount_cents: o.amount_cents,
  currency: o.currency,
  email: o.email,
  status: o.status,
  counter_cents: o.counter_cents,
  checkout_session_id: o.checkout_session_id,
  created_at: o.created_at.toISOString(),
  decided_at: o.decided_at?.toISOString() ?? null,
  ...(checkoutUrl === undefined ? {} : { checkout_url: checkoutUrl })
})

const line = (o: OfferRow) =>
  `${o.id}  ${o.domain}  ${moneyInWords(o.amount_cents, o.currency)}  ${o.status}${
    o.counter_cents === null ? "" : ` (counter ${moneyInWords(o.counter_cents, o.currency)})`
  }  ${o.email}  ${timeInWords(o.created_at)}`

const list = Command.make("list", { json, status }, ({ json, status }) =>
  Effect.gen(function*() {
    const rows = yield* (yield* Offers).list(Option.getOrNull(status))
    yield* print(json, rows.map((r) => view(r)), rows.length === 0 ? "No offers." : rows.map(line).join("\n"))
  })).pipe(Command.withDescription("List offers, newest first"))

const decide = (o: { readonly json: boolean; readonly offerId: string }, decision: Decision) =>
  Effect.gen(function*() {
    const offers = yield* Offers
    // Recorded once decided (the buyer is told as part of it); never with the checkout link, which
    // lets its holder pay.
    const result = yield* cliAction(
      {
        action: `offer.${decision._tag}`,
        target: o.offerId,
        after: ({ offer }) => ({
          status: offer.status,
          counter_cents: offer.counter_cents,
          checkout_session_id: offer.checkout_session_id
        }),
        transactional: false
      },
      offers.decide(o.offerId, decision)
    ).pipe(
      Effect.map(Option.some),
      Effect.catchTags({
        OfferNotFound: (e) => Effect.zipRight(abort(e.message, "not_found"), Effect.succeed(Option.none())),
        OfferClosed: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none())),
        DomainNotForSale: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none())),
        DomainNotPriced: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none())),
        ListingUnavailable: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none())),
        ListingHeld: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none()))
      })
    )
    if (Option.isNone(result)) return
    const { checkoutUrl, offer } = result.value
    yield* print(
      o.json,
      view(offer, checkoutUrl),
      checkoutUrl === null
        ? `Offer ${offer.id} ${offer.status}; the buyer was told.`
        : `Offer ${offer.id} ${offer.status}; the buyer was sent this checkout link:\n${checkoutUrl}`
    )
  })

const accept = Command.make("accept", { json, offerId }, (o) => decide(o, { _tag: "accept" })).pipe(
  Command.withDescription("Accept a pending offer: the buyer gets a checkout link at the offered amount")
)

const counter = Command.make(
  "counter",
  { json, offerId, amountCents },
  (o) =>
    o.amountCents < 1 || o.amountCents > MAX_OFFER_CENTS
      ? abort(`--amount-cents must be between 1 and ${MAX_OFFER_CENTS}`, "usage")
      : decide(o, { _tag: "counter", amountCents: o.amountCents })
).pipe(
  Command.withDescription("Answer a pending offer with another price: the buyer gets a checkout link at it")
)

const decline = Command.make("decline", { json, offerId }, (o) => decide(o, { _tag: "decline" })).pipe(
  Command.withDescription("Decline a pending offer (the buyer is told)")
)

export const offersCommand = Command.make("offers").pipe(
  Command.withDescription("Offers on marketplace listings (the seller side)"),
  Command.withSubcommands([list, accept, counter, decline])
)
