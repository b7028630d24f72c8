/** Handler of POST /api/market/offers: limit → parse the name → Offers.create → the offer, 201. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { domainInput } from "../platform/http/DomainInput.js"
import { Offer } from "./Api.js"
import { Offers } from "./Offers.js"
import type { OfferRow } from "./Repo.js"

export const offerOf = (row: OfferRow) =>
  new Offer({
    id: row.id,
    domain: row.domain,
    amount_cents: row.amount_cents,
    status: row.status,
    created_at: row.created_at.toISOString()
  })

export const OffersHttpLive = HttpApiBuilder.group(Api, "marketOffers", (handlers) =>
  Effect.gen(function*() {
    const offers = yield* Offers
    return handlers.handle("makeOffer", ({ payload }) =>
      Effect.gen(function*() {
        const name = yield* domainInput("domain", payload.domain, "whole-input")
        const row = yield* offers.create({
          domain: name.ascii,
          amountCents: payload.amount_cents,
          email: payload.email.trim()
        })
        return offerOf(row)
      }))
  }))
