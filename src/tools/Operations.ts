/**
 * The tools slice's public operation (../operations/Operation.ts) for the agent tools: names built
 * from a description, each checked for availability; the rule and the cached answer of
 * `POST /api/tools/domain-suggest` (the same `Tools.suggest`, its `result`).
 */
import { Effect, Schema } from "effect"
import { operation } from "../operations/Operation.js"
import { DomainSuggestInput, limits } from "./Api.js"
import { Tools } from "./Tools.js"

export const SuggestDomainsInput = Schema.Struct({
  description: DomainSuggestInput.fields.keywords.annotations({
    description: "What the domain is for, in a few words; names are built from its first five words",
    examples: ["coffee shop"]
  }),
  tlds: DomainSuggestInput.fields.tlds,
  limit: DomainSuggestInput.fields.limit
})

/** suggest_domains' result: POST /api/tools/domain-suggest's `result`. */
export const SuggestDomainsOutput = Schema.Struct({
  keywords: Schema.String,
  suggestions: Schema.Array(Schema.Struct({
    domain: Schema.String,
    domain_unicode: Schema.String,
    state: Schema.String,
    available: Schema.NullOr(Schema.Boolean).annotations({ description: "null when the registry could not be asked" }),
    price: Schema.NullOr(Schema.Number).annotations({ description: "USD per year; null when unknown" })
  }))
}).annotations({ identifier: "SuggestDomainsResult" })

export const suggestDomains = operation({
  name: "suggest_domains",
  title: "Suggest domains",
  description:
    "Domain names built from a short description (its words joined, with common prefixes and suffixes, hyphenated), each " +
    "checked for availability with its price. Same answer as POST /api/tools/domain-suggest (its result) and the same quota.",
  endpoint: "POST /api/tools/domain-suggest",
  input: SuggestDomainsInput,
  output: SuggestDomainsOutput,
  rateLimit: limits["domain-suggest"],
  run: (input) =>
    Effect.map(
      Effect.flatMap(Tools, (tools) =>
        tools.suggest({ keywords: input.description, tlds: input.tlds, limit: input.limit })),
      // The cache keeps the answer as unknown; it is the suggestion body the service built.
      (answer) =>
        answer.result as typeof SuggestDomainsOutput.Type
    ),
  summarize: (value) => {
    const available = value.suggestions.filter((s) => s.available === true)
    return `${available.length} of ${value.suggestions.length} suggestions available:\n` +
      value.suggestions.map((s) =>
        `${s.domain_unicode}: ${s.available === true ? "available" : s.state}${
          s.price !== null ? ` — $${s.price.toFixed(2)}/yr` : ""
        }`
      ).join("\n")
  }
})
