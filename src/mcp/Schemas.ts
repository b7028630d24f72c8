/**
 * The agent tools' input and output schemas, built from the REST endpoints' own schemas, and
 * their JSON Schema form for `tools/list` (`inputSchema`, `outputSchema`).
 *
 * Contract: what a tool returns in `structuredContent` is exactly what its REST endpoint (or
 * batch operation) answers for the same input, so the output schemas describe those bodies.
 */
import { JSONSchema, Schema } from "effect"
import { PriceOpParam, TldPrice } from "../catalogue/Api.js"
import { TldMetadata } from "../catalogue/TldMetadata.js"
import { WhoisRequest, WhoisResponse } from "../lookup/Api.js"
import { MarketListing } from "../market/Api.js"
import { SearchBody } from "../search/Api.js"
import { RowEvent } from "../search/Rows.js"
import { DomainSuggestInput } from "../tools/Api.js"

const TldField = Schema.String.annotations({
  description: "The TLD without a leading dot, e.g. com or co.uk",
  examples: ["com"]
})

export const SearchDomainInput = Schema.Struct({
  ...SearchBody.fields,
  include_alternates: Schema.optionalWith(Schema.Boolean, { default: () => true }).annotations({
    description:
      "Also check the label under the common alternate TLDs (only for a plain label.tld query). Default true."
  })
})

export const WhoisLookupInput = WhoisRequest

export const TldRegistrationPriceInput = Schema.Struct({
  tld: TldField,
  op: Schema.optionalWith(PriceOpParam, { default: () => "register" as const }).annotations({
    description: "Lifecycle operation; default register"
  })
})

export const TldRequirementsInput = Schema.Struct({ tld: TldField })

/** A row of the search stream (`kind: "row"`), as `POST /api/domain/search` streams it. */
export const SearchRow = RowEvent.annotations({ identifier: "SearchRow" })

/** search_domain's result: the batch operation's body, `{query, results: rows}`. */
export const SearchDomainOutput = Schema.Struct({
  query: Schema.String,
  results: Schema.Array(SearchRow)
}).annotations({ identifier: "SearchDomainResult" })

/** check_domains: up to 50 names, each checked as the search stream checks its queried name. */
export const MAX_CHECK_DOMAINS = 50
export const CheckDomainsInput = Schema.Struct({
  domains: Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))).pipe(
    Schema.minItems(1),
    Schema.maxItems(MAX_CHECK_DOMAINS)
  ).annotations({ description: "1 to 50 domain names, e.g. [\"example.com\", \"example.io\"]" })
})

/** check_domains' result: one search-stream row per distinct name, in the order asked. */
export const CheckDomainsOutput = Schema.Struct({
  results: Schema.Array(SearchRow)
}).annotations({ identifier: "CheckDomainsResult" })

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

export const GetListingInput = Schema.Struct({
  domain: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)).annotations({
    description: "A domain listed for sale on the marketplace",
    examples: ["example.com"]
  })
})
export const GetListingOutput = MarketListing

export const CreatePurchaseLinkInput = GetListingInput
export const CreatePurchaseLinkOutput = Schema.Struct({
  url: Schema.String.annotations({ description: "The domain's buy page; a person opens it to pay" })
}).annotations({ identifier: "PurchaseLink" })

export const WhoisLookupOutput = WhoisResponse
export const TldRegistrationPriceOutput = TldPrice
export const TldRequirementsOutput = TldMetadata

export interface ObjectJsonSchema {
  readonly type: "object"
  readonly [key: string]: unknown
}

/**
 * JSON Schema of a struct schema with the object at the root (MCP requires `type: "object"` there;
 * `JSONSchema.make` puts an identified schema under `$defs` and refers to it).
 */
export const objectJsonSchema = (schema: Schema.Schema.Any): ObjectJsonSchema => {
  const { $defs, $ref, $schema: _, ...rest } = JSONSchema.make(schema) as {
    $defs?: Record<string, object>
    $ref?: string
    $schema?: string
    [k: string]: unknown
  }
  const defs = { ...$defs }
  let root: Record<string, unknown> = rest
  if ($ref !== undefined) {
    const name = $ref.replace("#/$defs/", "")
    root = { ...defs[name] }
    // Keep the definition: nested references to it (none today) stay valid.
  }
  return { ...root, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) } as ObjectJsonSchema
}
