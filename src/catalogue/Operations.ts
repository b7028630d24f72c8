/**
 * The catalogue's public operations (../operations/Operation.ts), each the rule of its REST
 * endpoint (./Http.ts calls the same service method) for the agent tools and the batch:
 *
 *   tld_registration_price   GET /api/pricing/tld            (op defaults to register here)
 *   tld_requirements         GET /api/tlds/{tld}/metadata
 */
import { Effect, Schema } from "effect"
import { operation } from "../operations/Operation.js"
import { limits, PriceOpParam, TldPrice } from "./Api.js"
import { Catalogue } from "./Catalogue.js"
import { TldMetadata } from "./TldMetadata.js"

const TldField = Schema.String.annotations({
  description: "The TLD without a leading dot, e.g. com or co.uk",
  examples: ["com"]
})

export const TldRegistrationPriceInput = Schema.Struct({
  tld: TldField,
  op: Schema.optionalWith(PriceOpParam, { default: () => "register" as const }).annotations({
    description: "Lifecycle operation; default register"
  })
})

export const TldRequirementsInput = Schema.Struct({ tld: TldField })

export const tldRegistrationPrice = operation({
  name: "tld_registration_price",
  title: "TLD price",
  description:
    "Price in USD cents for one year of a lifecycle operation (register by default, renew, transfer, restore) of a TLD; " +
    "priceCents is null when the TLD/operation is unsupported. Same answer as GET /api/pricing/tld.",
  endpoint: "GET /api/pricing/tld",
  input: TldRegistrationPriceInput,
  output: TldPrice,
  rateLimit: limits.pricing,
  run: (input) => Effect.flatMap(Catalogue, (catalogue) => catalogue.tldPrice(input.tld, input.op)),
  summarize: (p) =>
    p.priceCents === null
      ? `.${p.tld}: no ${p.op} price (unsupported)`
      : `.${p.tld} ${p.op}: $${(p.priceCents / 100).toFixed(2)} for one year`
})

export const tldRequirements = operation({
  name: "tld_requirements",
  title: "TLD registration requirements",
  description:
    "Registration rules of a TLD: allowed periods, contacts, nameserver counts, DNSSEC, IDN and other features. " +
    "Same answer as GET /api/tlds/{tld}/metadata.",
  endpoint: "GET /api/tlds/{tld}/metadata",
  input: TldRequirementsInput,
  output: TldMetadata,
  rateLimit: limits.metadata,
  run: (input) => Effect.flatMap(Catalogue, (catalogue) => catalogue.metadataOf(input.tld)),
  summarize: (m) => `.${m.tld} (${m.provider}): periods ${m.periodsMonths.join(", ")} months`
})
