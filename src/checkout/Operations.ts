/**
 * The checkout's public operation (../operations/Operation.ts) for the agent tools: the link to a
 * listed name's buy page (./BuyForm.ts), for a person to open and pay there. It reserves, charges
 * and records nothing; a name not listed is refused as the listing read refuses it.
 */
import { Effect, Schema } from "effect"
import { limits } from "../market/Api.js"
import { Market } from "../market/Market.js"
import { ListingInput } from "../market/Operations.js"
import { operation } from "../operations/Operation.js"
import { AppConfig } from "../platform/Config.js"
import { domainInput } from "../platform/http/DomainInput.js"
import { buyPath } from "./BuyForm.js"

export const PurchaseLink = Schema.Struct({
  url: Schema.String.annotations({ description: "The domain's buy page; a person opens it to pay" })
}).annotations({ identifier: "PurchaseLink" })

export const createPurchaseLink = operation({
  name: "create_purchase_link",
  title: "Create a purchase link",
  description:
    "The link to a listed domain's buy page, for the person to open and pay there; this tool never pays or reserves anything. " +
    "A name listed only in the sandbox inventory gets the sandbox buy page (?env=sandbox). A name not listed is refused.",
  endpoint: "GET /buy/{domain}",
  input: ListingInput,
  output: PurchaseLink,
  rateLimit: limits.listings,
  run: (input) =>
    Effect.gen(function*() {
      const name = yield* domainInput("domain", input.domain, "field-input")
      const config = yield* AppConfig
      const market = yield* Market
      const environment = yield* market.listedListing("live", name.ascii).pipe(
        Effect.as("live" as const),
        Effect.catchTag("ListingNotFound", () =>
          Effect.as(market.listedListing("sandbox", name.ascii), "sandbox" as const))
      )
      return { url: `${config.baseUrl}${buyPath(environment, name.ascii)}` }
    }),
  summarize: ({ url }, input) =>
    `Open ${url} to buy ${input.domain.trim()}` +
    (url.endsWith("?env=sandbox") ? " (sandbox: no real payment)" : "") +
    ". Nothing is charged until the person pays on that page."
})
