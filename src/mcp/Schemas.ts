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
import { SearchBody } from "../search/Api.js"
import { RowEvent } from "../search/Rows.js"

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
