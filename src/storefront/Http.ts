/**
 * Handlers of the storefront pages: decode → the owning service (Search, Market, Catalogue,
 * Offers) → the rendered page. Each page answers HTML, whatever goes wrong with the input.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Either, FiberRef, Layer, Option, Schema } from "effect"
import { Api } from "../app/Api.js"
import { Catalogue } from "../catalogue/Catalogue.js"
import { Email } from "../checkout/Api.js"
import { makeBuyForm } from "../checkout/BuyForm.js"
import { LISTING_SORTS, type ListingSort } from "../domain/ListingOrder.js"
import { tldFilter } from "../market/Errors.js"
import { DEFAULT_PAGE_LIMIT, Market } from "../market/Market.js"
import { MAX_OFFER_CENTS } from "../offers/Api.js"
import { Offers } from "../offers/Offers.js"
import { AppConfig } from "../platform/Config.js"
import { hostOf } from "../platform/http/ClientIp.js"
import { CurrentRequestId, NotFoundError } from "../platform/http/Errors.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { searchResponse } from "../search/Http.js"
import { Search } from "../search/Search.js"
import { contactPage, privacyPage, termsPage } from "./InfoPages.js"
import { BulkIsland, CopyIsland, SearchIsland } from "./Island.js"
import { storePage } from "./Layout.js"
import {
  domainPage,
  landerPage,
  marketPage,
  marketProblemPage,
  notADomainPage,
  offerProblemPage,
  offerReceivedPage
} from "./MarketPages.js"
import { homePage, resultsPage, searchProblemPage } from "./Pages.js"
import { decodeSegment } from "./Refusals.js"
import { contactAddress, StorefrontConfig } from "./Settings.js"

const first = (v: string | ReadonlyArray<string> | undefined) => (Array.isArray(v) ? v[0] ?? "" : (v as string) ?? "")

/** "1500", "1,500.50", "$1500" → cents; null when it is not a positive amount. */
export const centsOf = (input: string): number | null => {
  const t = input.trim().replace(/^[$€£]/, "").replace(/,/g, "")
  if (!/^\d{1,12}(\.\d{1,2})?$/.test(t)) return null
  const cents = Math.round(Number(t) * 100)
  return cents >= 1 && cents <= MAX_OFFER_CENTS ? cents : null
}

/** Hosts that are never a lander (this service's own name, addresses, single labels). */
const couldBeLander = (host: string, ownHost: string) =>
  host !== "" && host !== ownHost && host.includes(".") && !/^[\d.]+$/.test(host) && !host.startsWith("[") &&
  host.length <= 253

export const StorefrontHttpLive = HttpApiBuilder.group(Api, "storefrontPages", (handlers) =>
  Effect.gen(function*() {
    const search = yield* Search
    const market = yield* Market
    const catalogue = yield* Catalogue
    const offers = yield* Offers
    const island = yield* SearchIsland
    const bulkIsland = yield* BulkIsland
    const copyIsland = yield* CopyIsland
    const config = yield* AppConfig
    const offerCsrf = makeBuyForm((yield* ServiceSecret).key("offer-csrf"))
    const contact = contactAddress(yield* StorefrontConfig, config.baseUrl)
    const ownHost = URL.canParse(config.baseUrl) ? new URL(config.baseUrl).hostname.toLowerCase() : ""

    const offerAction = (domain: string, absolute: boolean) =>
      `${absolute ? config.baseUrl : ""}/d/${encodeURIComponent(domain)}/offer`
    const offerFormOf = (domain: string, currency: string, absolute: boolean) =>
      Effect.map(Clock.currentTimeMillis, (now) => ({
        domain,
        currency,
        action: offerAction(domain, absolute),
        csrf: offerCsrf.token("live", domain, now)
      }))

    return handlers
      .handle("home", ({ request }) =>
        Effect.gen(function*() {
          const host = hostOf(request, config.trustProxy)
          if (couldBeLander(host, ownHost)) {
            const listing = yield* Effect.option(market.listedListing("live", host))
            if (Option.isSome(listing)) {
              const l = listing.value
              const form = yield* offerFormOf(l.domain, l.currency, true)
              return storePage(landerPage(l, config.baseUrl, form))
            }
          }
          return storePage(homePage(), { script: yield* island.src })
        }))
      .handle("searchPage", ({ urlParams }) =>
        Effect.gen(function*() {
          const startedAt = yield* Clock.currentTimeMillis
          const q = first(urlParams.q).trim()
          const script = yield* island.src
          if (q === "") {
            return storePage(searchProblemPage("", "Type a domain name, for example yourname.com."), { script })
          }
          const plan = search.plan(q)
          if (Either.isLeft(plan)) {
            return storePage(
              searchProblemPage(q, `“${q.slice(0, 253)}” is not a domain name: ${plan.left.message}`),
              { status: 400, script }
            )
          }
          const requestId = yield* FiberRef.get(CurrentRequestId)
          // The page shows the buy-now price (public on /buy) and never the floor price.
          const rows = yield* search.rows(plan.right, { requestId, marketPrices: "buy-now", startedAt })
          return storePage(resultsPage(q, rows), { script })
        }))
      // The pages' prices: the buy-now price as /search and /buy show it, never the floor.
      .handle("searchStream", ({ urlParams }) => searchResponse(search, urlParams.q, "buy-now"))
      .handle("marketPage", ({ urlParams }) =>
        Effect.gen(function*() {
          const rawSort = urlParams.sort ?? "newest"
          const query = {
            q: (urlParams.q ?? "").trim(),
            tld: (urlParams.tld ?? "").trim(),
            sort: ((LISTING_SORTS as ReadonlyArray<string>).includes(rawSort) ? rawSort : "newest") as ListingSort
          }
          const problem = (message: string) => storePage(marketProblemPage(query, message), { status: 400 })
          if (!(LISTING_SORTS as ReadonlyArray<string>).includes(rawSort)) {
            return problem("Choose one of the sorts below.")
          }
          if (query.q.length > 253) return problem("The name filter is longer than a domain name can be.")
          const tld = query.tld === "" ? Either.right(undefined) : yield* Effect.either(tldFilter(query.tld))
          if (Either.isLeft(tld)) return problem(tld.left.message)
          const q = query.q.normalize("NFC").toLowerCase()
          const browsed = yield* Effect.either(market.browse({
            filters: { environment: "live", q: q === "" ? undefined : q, tld: tld.right, maxCents: undefined },
            sort: query.sort,
            limit: DEFAULT_PAGE_LIMIT,
            offset: 0,
            cursor: urlParams.cursor
          }))
          if (Either.isLeft(browsed)) {
            return problem("This page link is out of date or was changed: start again from the first page.")
          }
          return storePage(marketPage(query, browsed.right.rows, browsed.right.page, urlParams.cursor === undefined))
        }))
      .handle("domainPage", ({ path }) =>
        Effect.gen(function*() {
          const startedAt = yield* Clock.currentTimeMillis
          const raw = decodeSegment(path.domain)
          const plan = search.plan(raw)
          if (Either.isLeft(plan)) return storePage(notADomainPage(raw), { status: 404 })
          const requestId = yield* FiberRef.get(CurrentRequestId)
          const [rows, listing] = yield* Effect.all([
            search.rows(plan.right, { requestId, marketPrices: "buy-now", startedAt }),
            Effect.option(market.listedListing("live", plan.right.primary.ascii))
          ], { concurrency: 2 })
          const primary = rows.find((r) => r.domain === plan.right.primary.ascii) ?? rows[0]
          if (primary === undefined) return storePage(notADomainPage(raw), { status: 404 })
          const tld = primary.domain.split(".").slice(1).join(".")
          const [price, metadata] = yield* Effect.all([
            Effect.option(catalogue.tldPrice(tld, "register")),
            Effect.option(catalogue.metadataOf(tld))
          ])
          const l = Option.getOrNull(listing)
          return storePage(domainPage({
            primary,
            alternates: rows.filter((r) => r !== primary),
            listing: l,
            registerCents: Option.match(price, { onNone: () => null, onSome: (p) => p.priceCents }),
            tld,
            metadata: Option.getOrNull(metadata),
            offer: l === null ? null : yield* offerFormOf(l.domain, l.currency, false)
          }))
        }))
      .handle("offerForm", ({ path, payload }) =>
        Effect.gen(function*() {
          const raw = decodeSegment(path.domain)
          const plan = search.plan(raw)
          if (Either.isLeft(plan)) return storePage(notADomainPage(raw), { status: 404 })
          const domain = plan.right.primary.ascii
          const now = yield* Clock.currentTimeMillis
          if (!offerCsrf.valid(payload.csrf, "live", domain, now)) {
            return storePage(offerProblemPage(domain, "This form is out of date: open the page again.", null), {
              status: 403
            })
          }
          const listing = yield* Effect.option(market.listedListing("live", domain))
          if (Option.isNone(listing)) {
            return storePage(offerProblemPage(domain, `${domain} is not listed for sale.`, null), { status: 404 })
          }
          const amount = (payload.amount ?? "").slice(0, 32)
          const email = (payload.email ?? "").trim().slice(0, 254)
          const again = { ...(yield* offerFormOf(domain, listing.value.currency, false)), amount, email }
          const cents = centsOf(amount)
          if (cents === null) {
            return storePage(offerProblemPage(domain, "Enter your offer as an amount, for example 1500.", again), {
              status: 400
            })
          }
          if (Either.isLeft(Schema.decodeUnknownEither(Email)(email))) {
            return storePage(offerProblemPage(domain, "Enter an e-mail address where the seller can answer.", again), {
              status: 400
            })
          }
          const made = yield* Effect.either(offers.create({ domain, amountCents: cents, email }))
          if (Either.isLeft(made)) {
            return storePage(offerProblemPage(domain, `${domain} is not listed for sale.`, null), { status: 404 })
          }
          const o = made.right
          return storePage(
            offerReceivedPage({ id: o.id, domain: o.domain, amountCents: o.amount_cents, currency: o.currency, email }),
            { status: 201 }
          )
        }))
      .handle("termsPage", () => Effect.succeed(storePage(termsPage(contact))))
      .handle("privacyPage", () => Effect.succeed(storePage(privacyPage(contact))))
      .handle("contactPage", () => Effect.succeed(storePage(contactPage(contact))))
      .handle("asset", ({ path }) =>
        Effect.flatMap(
          (path.file.startsWith("bulk.") ? bulkIsland : path.file.startsWith("copy.") ? copyIsland : island).asset,
          (asset) =>
            Option.isSome(asset) && asset.value.file === path.file
              ? Effect.succeed(HttpServerResponse.uint8Array(asset.value.code, {
                contentType: "text/javascript; charset=utf-8",
                headers: { "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" }
              }))
              : new NotFoundError({ code: "not_found", message: "No such asset (an older build's, or none)" })
        ))
  })).pipe(Layer.provide(Layer.mergeAll(SearchIsland.Default, BulkIsland.Default, CopyIsland.Default)))
