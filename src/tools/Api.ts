/**
 * Free tools.
 *
 *   POST /api/tools/{slug}                   inline: 200 {ok, cached, result}
 *                                            async:  202 {ok, cached: false, result: {mode: "async", jobId, status_url}} + Location
 *   GET  /api/tools/{slug}/status/{jobId}    200 {jobId, tool, status, result, error?, progress, attempts, …}
 *
 * Each tool has its own endpoint (so its input schema is published); any other slug is 404
 * `unknown_tool`. Per-IP quotas per tool (RATE_LIMIT_TOOL_<SLUG>).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { RECORD_TYPES } from "../lookup/DnsLookup.js"
import { documentedAt, rateLimited } from "../platform/http/ApiAnnotations.js"
import { InvalidDomain } from "../platform/http/DomainInput.js"
import { BadRequest, errorWire, NotFound, RateLimited } from "../platform/http/Errors.js"
import { policy } from "../platform/http/RateLimit.js"
import { InvalidJobId, InvalidKeywords, InvalidUrl, ToolJobNotFound, UnknownTool } from "./Errors.js"

export const limits = {
  "idn-convert": policy("tool_idn_convert", 120, 60),
  "dns-lookup": policy("tool_dns_lookup", 60, 60),
  "domain-suggest": policy("tool_domain_suggest", 30, 60),
  appraise: policy("tool_appraise", 60, 60),
  "site-check": policy("tool_site_check", 10, 60),
  "bulk-check": policy("tool_bulk_check", 5, 3600),
  status: policy("tool_status", 300, 60)
} as const

const DomainInput = Schema.String.pipe(Schema.maxLength(1000)).annotations({
  description: "A domain name (Unicode or A-label)",
  examples: ["bücher.de"]
})

export const IdnConvertInput = Schema.Struct({ domain: DomainInput }).annotations({ identifier: "IdnConvertInput" })
export const DnsLookupInput = Schema.Struct({
  domain: DomainInput,
  types: Schema.optional(Schema.Array(Schema.Literal(...RECORD_TYPES)).pipe(Schema.maxItems(7))).annotations({
    description: "Record types to ask for; default all of A, AAAA, MX, NS, TXT, CNAME, SOA"
  })
}).annotations({ identifier: "DnsLookupInput" })
export const DomainSuggestInput = Schema.Struct({
  keywords: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)).annotations({
    description: "Words to build names from",
    examples: ["coffee shop"]
  }),
  tlds: Schema.optional(
    Schema.Array(Schema.String.pipe(Schema.pattern(/^\.?[A-Za-z0-9-]{2,63}$/))).pipe(Schema.maxItems(10))
  ).annotations({
    description: "TLDs to try (default com, net, org, io, co, app, dev, ai)"
  }),
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 20))).annotations({
    description: "Names to check, 1–20 (default 10)"
  })
}).annotations({ identifier: "DomainSuggestInput" })
export const AppraiseInput = Schema.Struct({ domain: DomainInput }).annotations({ identifier: "AppraiseInput" })
export const SiteCheckInput = Schema.Struct({
  url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000)).annotations({
    description: "http(s) URL, or a bare host (https:// is assumed)",
    examples: ["https://example.com"]
  })
}).annotations({ identifier: "SiteCheckInput" })
export const BulkCheckInput = Schema.Struct({
  domains: Schema.Array(Schema.String.pipe(Schema.maxLength(1000))).pipe(Schema.minItems(1), Schema.maxItems(500))
    .annotations({
      description: "1 to 500 domain names",
      examples: [["example.com", "bücher.de"]]
    })
}).annotations({ identifier: "BulkCheckInput" })

const ToolResult = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  description: "Tool-specific result (see docs/tools.md)"
})

export const InlineResponse = Schema.Struct({
  ok: Schema.Boolean,
  cached: Schema.Boolean.annotations({ description: "Served from the short cache of identical calls" }),
  result: ToolResult
}).annotations({ identifier: "ToolInlineResponse" })

export const AcceptedResponse = Schema.Struct({
  ok: Schema.Boolean,
  cached: Schema.Literal(false),
  result: Schema.Struct({
    mode: Schema.Literal("async"),
    jobId: Schema.String.annotations({ description: "job_… id", examples: ["job_01jd3k9x0a1b2c3d4e5f6g7h8j"] }),
    status_url: Schema.String.annotations({
      description: "Poll this URL (also in the Location header)",
      examples: ["https://marketplace.example.com/api/tools/bulk-check/status/job_01jd3k9x0a1b2c3d4e5f6g7h8j"]
    })
  })
}).annotations({ identifier: "ToolAcceptedResponse" })

export const JobStatusResponse = Schema.Struct({
  jobId: Schema.String,
  tool: Schema.String,
  status: Schema.Literal("queued", "running", "done", "failed").annotations({
    description: "done and failed are terminal"
  }),
  result: ToolResult.annotations({ description: "The tool's result once done; {} before" }),
  error: Schema.optional(Schema.String).annotations({ description: "Why the job failed (only when failed)" }),
  progress: Schema.NullOr(Schema.Unknown).annotations({
    description: "Tool-specific progress, e.g. {checked, total} for bulk-check"
  }),
  attempts: Schema.Int,
  created_at: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  finished_at: Schema.NullOr(Schema.String)
}).annotations({
  identifier: "ToolJobStatus",
  examples: [{
    jobId: "job_01jd3k9x0a1b2c3d4e5f6g7h8j",
    tool: "bulk-check",
    status: "done",
    result: {
      total: 1,
      checked: 1,
      available: 0,
      registered: 1,
      items: [{ domain: "example.com", state: "registered", available: false, price: null, error: null }]
    },
    progress: { checked: 1, total: 1 },
    attempts: 1,
    created_at: "2026-01-09T14:02:11.000Z",
    started_at: "2026-01-09T14:02:11.250Z",
    finished_at: "2026-01-09T14:02:12.900Z"
  }]
})

// Each endpoint declares its specific errors before the generic BadRequest/NotFound: a typed client
// decodes an error to the first declared class at its status that accepts it, and a generic class
// accepts any code (test/tools/tools.test.ts checks each class comes back).
const inline = <N extends string, P extends Schema.Schema.Any>(
  name: N,
  slug: keyof typeof limits,
  payload: P,
  summary: string,
  description: string
) =>
  HttpApiEndpoint.post(name, `/api/tools/${slug}`)
    .setPayload(payload)
    .addSuccess(InlineResponse)
    .addError(RateLimited)
    .annotate(OpenApi.Summary, summary)
    .annotate(OpenApi.Description, description)
    .pipe(rateLimited(limits[slug]), documentedAt(`/docs/tools.md#${slug}`))

const async = <N extends string, P extends Schema.Schema.Any>(
  name: N,
  slug: keyof typeof limits,
  payload: P,
  summary: string,
  description: string
) =>
  HttpApiEndpoint.post(name, `/api/tools/${slug}`)
    .setPayload(payload)
    .addSuccess(AcceptedResponse, { status: 202 })
    .addError(RateLimited)
    .annotate(OpenApi.Summary, summary)
    .annotate(OpenApi.Description, description)
    .pipe(rateLimited(limits[slug]), documentedAt(`/docs/tools.md#${slug}`))

export class ToolsApi extends HttpApiGroup.make("tools")
  .add(
    inline(
      "idnConvert",
      "idn-convert",
      IdnConvertInput,
      "Convert a domain between Unicode and A-label",
      "UTS-46 (nontransitional) conversion; an invalid name answers valid: false with the rule that rejected it."
    ).addError(BadRequest)
  )
  .add(
    inline(
      "dnsLookup",
      "dns-lookup",
      DnsLookupInput,
      "DNS records of a name",
      "A, AAAA, MX, NS, TXT, CNAME and SOA through the configured resolver (DNS_RESOLVER)."
    ).addError(errorWire(InvalidDomain)).addError(BadRequest)
  )
  .add(
    inline(
      "domainSuggest",
      "domain-suggest",
      DomainSuggestInput,
      "Domain names from keywords, with availability",
      "Names built from the keywords, each checked by the availability engine."
    ).addError(errorWire(InvalidKeywords)).addError(BadRequest)
  )
  .add(
    inline(
      "appraise",
      "appraise",
      AppraiseInput,
      "Estimated value of a domain",
      "A transparent estimate from TLD, length, composition, words and comparable listings; every factor is returned."
    ).addError(errorWire(InvalidDomain)).addError(BadRequest)
  )
  .add(
    async(
      "siteCheck",
      "site-check",
      SiteCheckInput,
      "Check a website (async)",
      "Redirect chain, final URL and status, title, TLS validity and response time, fetched through the SSRF guard. Answers 202 with a job to poll."
    ).addError(errorWire(InvalidUrl)).addError(BadRequest)
  )
  .add(
    async(
      "bulkCheck",
      "bulk-check",
      BulkCheckInput,
      "Availability of up to 500 domains (async)",
      "Answers 202 with a job; its status shows progress {checked, total} and, when done, one item per domain."
    ).addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.post("unknownTool")`/api/tools/${HttpApiSchema.param("slug", Schema.String)}`
      .addSuccess(InlineResponse)
      .addError(errorWire(UnknownTool))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Any other tool slug")
      .annotate(
        OpenApi.Description,
        "404 unknown_tool: the tools are idn-convert, dns-lookup, domain-suggest, appraise, site-check, bulk-check (and whois)."
      )
  )
  .add(
    HttpApiEndpoint.get("toolJobStatus")`/api/tools/${HttpApiSchema.param("slug", Schema.String)}/status/${
      HttpApiSchema.param("jobId", Schema.String)
    }`
      .addSuccess(JobStatusResponse)
      .addError(errorWire(InvalidJobId))
      .addError(errorWire(UnknownTool))
      .addError(errorWire(ToolJobNotFound))
      .addError(RateLimited)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Status of an async tool job")
      .annotate(
        OpenApi.Description,
        "Poll until status is done or failed. 400 invalid_job_id for a malformed id; 404 unknown_tool or job_not_found."
      )
      .pipe(rateLimited(limits.status), documentedAt("/docs/tools.md#job-status"))
  )
  .annotate(OpenApi.Title, "Free tools")
  .annotate(OpenApi.Description, "Inline tools and async tool jobs")
{}
