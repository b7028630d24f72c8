/** Handlers of the partner inventory endpoints. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Api } from "../../app/Api.js"
import { CurrentPartner } from "../Auth.js"
import { domainParam } from "../Common.js"
import { MalformedParameter } from "../Errors.js"
import { Availability, DomainDetail, Pricing, SearchResponse, SearchResultItem } from "./Api.js"
import { Inventory } from "./Inventory.js"

const Q_RE = /^[\p{L}\p{N} .-]+$/u

export const PartnerInventoryHttpLive = HttpApiBuilder.group(
  Api,
  "partnerInventory",
  (handlers) =>
    Effect.gen(function*() {
      const inventory = yield* Inventory
      return handlers
        .handle("search", ({ urlParams }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            const q = urlParams.q.trim()
            if (q.length === 0) return yield* MalformedParameter.of("q: must not be empty")
            if (q.length > 100) return yield* MalformedParameter.of("q: at most 100 characters")
            if (!Q_RE.test(q)) {
              return yield* MalformedParameter.of("q: only letters, digits, spaces, dots and hyphens are allowed")
            }
            if (!/[\p{L}\p{N}]/u.test(q)) return yield* MalformedParameter.of("q: must contain a letter or digit")
            const ranked = yield* inventory.search(
              partner.environment,
              q.normalize("NFC").toLowerCase(),
              partner.partnerId
            )
            return new SearchResponse({
              query: q,
              count: ranked.length,
              results: ranked.map((r) =>
                new SearchResultItem({
                  domain: r.listing.domain,
                  tld: r.listing.tld,
                  bin_price_cents: r.listing.bin_price_cents,
                  floor_price_cents: r.listing.floor_price_cents,
                  currency: r.listing.currency,
                  available: r.available,
                  score: r.score
                })
              )
            })
          }))
        .handle("domain", ({ path }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            const name = yield* domainParam("name", path.name)
            const { available, listing: l, reserved } = yield* inventory.detail(
              partner.environment,
              name.ascii,
              partner.partnerId
            )
            return new DomainDetail({
              domain: l.domain,
              domain_unicode: l.domain_unicode,
              tld: l.tld,
              available,
              status: l.status,
              bin_price_cents: l.bin_price_cents,
              floor_price_cents: l.floor_price_cents,
              currency: l.currency,
              reserved,
              description: l.description,
              listed_at: l.listed_at.toISOString()
            })
          }))
        .handle("availability", ({ urlParams }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            const name = yield* domainParam("domain", urlParams.domain)
            const found = yield* inventory.lookup(partner.environment, name.ascii, partner.partnerId)
            return Option.match(found, {
              onNone: () =>
                new Availability({ domain: name.ascii, available: false, price_cents: null, currency: "USD" }),
              onSome: ({ available, listing }) =>
                new Availability({
                  domain: name.ascii,
                  available,
                  price_cents: available ? listing.bin_price_cents : null,
                  currency: listing.currency
                })
            })
          }))
        .handle("pricing", ({ urlParams }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            const name = yield* domainParam("domain", urlParams.domain)
            const l = yield* inventory.pricing(partner.environment, name.ascii, partner.partnerId)
            return new Pricing({
              domain: l.domain,
              bin_price_cents: l.bin_price_cents,
              floor_price_cents: l.floor_price_cents,
              currency: l.currency
            })
          }))
    })
)
