/**
 * Batch of public reads.
 *
 *   GET  /api/batch   → catalogue: operations, their params and endpoints, the cap, an example body
 *   POST /api/batch   → {results: [{id, op, status, body}], count, failed}
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt, rateLimited } from "../platform/http/ApiAnnotations.js"
import { BadRequest, RateLimited } from "../platform/http/Errors.js"
import { policy } from "../platform/http/RateLimit.js"

/** Operations one batch may hold. */
export const MAX_OPERATIONS = 20

export const limits = {
  batch: policy("batch", 60, 60)
} as const

export const BatchOperationRequest = Schema.Struct({
  id: Schema.optional(
    Schema.String.pipe(Schema.maxLength(128)).annotations({
      description: "Caller's id for the result; defaults to the operation's index as a string"
    })
  ),
  op: Schema.String.annotations({ description: "Operation name (see GET /api/batch)", examples: ["search_domain"] }),
  params: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description: "Operation parameters, e.g. {\"q\":\"example.com\"}"
    })
  )
}).annotations({ identifier: "BatchOperationRequest" })

export const BatchRequest = Schema.Struct({
  operations: Schema.Array(BatchOperationRequest).pipe(Schema.minItems(1), Schema.maxItems(MAX_OPERATIONS)).annotations(
    {
      description: `1 to ${MAX_OPERATIONS} operations, run concurrently, answered in request order`
    }
  )
}).annotations({ identifier: "BatchRequest" })

export class BatchResult extends Schema.Class<BatchResult>("BatchResult")({
  id: Schema.String.annotations({ examples: ["b"] }),
  op: Schema.String.annotations({ examples: ["tld_registration_price"] }),
  status: Schema.Int.annotations({
    description: "The HTTP status the single call would have answered",
    examples: [200]
  }),
  body: Schema.Unknown.annotations({
    description:
      "The single call's body (search_domain: {query, results: rows}); errors use the typed or legacy error shape of that endpoint",
    examples: [{ tld: "com", op: "register", priceCents: 1299 }]
  })
}) {}

export class BatchResponse extends Schema.Class<BatchResponse>("BatchResponse")({
  results: Schema.Array(BatchResult),
  count: Schema.Int.annotations({ examples: [1] }),
  failed: Schema.Int.annotations({ description: "Results with status >= 400", examples: [0] })
}) {}

const ParamDoc = Schema.Struct({
  type: Schema.Literal("string"),
  required: Schema.Boolean,
  description: Schema.String,
  enum: Schema.optional(Schema.Array(Schema.String)),
  default: Schema.optional(Schema.String)
})

export class BatchCatalogue extends Schema.Class<BatchCatalogue>("BatchCatalogue")({
  max_operations: Schema.Int.annotations({ examples: [MAX_OPERATIONS] }),
  min_operations: Schema.Int.annotations({ examples: [1] }),
  operations: Schema.Array(Schema.Struct({
    op: Schema.String,
    summary: Schema.String,
    endpoint: Schema.NullOr(Schema.String).annotations({
      description: "The single call it runs; null while unavailable (answers 501)"
    }),
    available: Schema.Boolean,
    params: Schema.Record({ key: Schema.String, value: ParamDoc }),
    rate_limit: Schema.NullOr(Schema.Struct({
      policy: Schema.String,
      limit: Schema.Int,
      window_seconds: Schema.Int,
      scope: Schema.Literal("ip")
    }))
  })).annotations({
    // search_domain as the catalogue lists it (an example param with a `default` would read as a
    // schema to Spectral's example rule, so the example shows the one without).
    examples: [[{
      op: "search_domain",
      summary:
        "Availability of a domain and, for a plain label.tld, its alternate TLDs (the rows of POST /api/domain/search)",
      endpoint: "POST /api/domain/search",
      available: true,
      params: { q: { type: "string", required: true, description: "The domain to check" } },
      rate_limit: { policy: "domain_search", limit: 60, window_seconds: 60, scope: "ip" }
    }]]
  }),
  example: BatchRequest,
  notes: Schema.Array(Schema.String).annotations({
    examples: [[
      "Each operation runs the handler of its single call, without credentials, and counts against that call's per-IP rate limit."
    ]]
  })
}) {}

export class BatchApi extends HttpApiGroup.make("batch")
  .add(
    HttpApiEndpoint.get("batchCatalogue", "/api/batch")
      .addSuccess(BatchCatalogue)
      .annotate(
        OpenApi.Description,
        "The operations POST /api/batch accepts, each with its parameters, and the maximum number of items per request."
      )
      .annotate(OpenApi.Summary, "Batch operations, their parameters and the per-request cap")
      .pipe(documentedAt("/docs/batch.md#catalogue"))
  )
  .add(
    HttpApiEndpoint.post("runBatch", "/api/batch")
      .setPayload(BatchRequest)
      .addSuccess(BatchResponse)
      .addError(RateLimited)
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Run up to 20 public reads in one request")
      .annotate(
        OpenApi.Description,
        "Each operation runs the checks and the service of its single call, anonymously, and counts against that call's per-IP limit; " +
          "each result carries its own status and body. A failed operation never fails the envelope; a malformed envelope is 400."
      )
      .pipe(rateLimited(limits.batch), documentedAt("/docs/batch.md#run-a-batch"))
  )
  .annotate(OpenApi.Title, "Batch")
  .annotate(OpenApi.Description, "Several public reads in one request")
{}
