/**
 * The batch operations: each maps its params onto the single-call endpoint it stands for (the
 * same names as the agent tools). Adding an operation is one entry in `OPERATIONS`:
 *
 *   whois_lookup: jsonPost("/api/tools/whois", { domain: required("The domain to look up") }, "…"),
 *
 * A params problem the endpoint itself would catch is left to the endpoint (same handler, same
 * error); only params that cannot be turned into a request at all (not an object, a field that
 * is not a scalar) are refused here with 400 `invalid_params`.
 */
import { Either } from "effect"
import { limits as catalogueLimits } from "../catalogue/Api.js"
import { limits as lookupLimits } from "../lookup/Api.js"
import type { RateLimitPolicy } from "../platform/RateLimit.js"
import { limits as searchLimits } from "../search/Api.js"
import type { DispatchedResponse, SyntheticRequest } from "./Dispatch.js"

export interface ParamSpec {
  readonly type: "string"
  readonly required: boolean
  readonly description: string
  readonly enum?: ReadonlyArray<string>
  readonly default?: string
}

export interface OperationRefusal {
  readonly status: number
  readonly code: string
  readonly message: string
}

export interface BatchOperation {
  readonly summary: string
  /** The single call this operation runs, e.g. `POST /api/domain/search`. */
  readonly endpoint: string | null
  readonly params: Readonly<Record<string, ParamSpec>>
  readonly rateLimit: RateLimitPolicy | null
  /** The request to dispatch, or a refusal answered inside the envelope. */
  readonly toRequest: (params: Readonly<Record<string, unknown>>) => Either.Either<SyntheticRequest, OperationRefusal>
  /** The operation's result body from the endpoint's response. */
  readonly toBody: (response: DispatchedResponse, params: Readonly<Record<string, unknown>>) => unknown
}

const required = (description: string): ParamSpec => ({ type: "string", required: true, description })
const optional = (description: string, extra?: Partial<ParamSpec>): ParamSpec => ({
  type: "string",
  required: false,
  description,
  ...extra
})

/** Scalars become strings; anything else cannot be put in a request. */
const scalars = (
  params: Readonly<Record<string, unknown>>,
  spec: Readonly<Record<string, ParamSpec>>
): Either.Either<Record<string, string>, OperationRefusal> => {
  const out: Record<string, string> = {}
  for (const [name, p] of Object.entries(spec)) {
    const v = params[name]
    if (v === undefined || v === null) {
      if (p.default !== undefined) out[name] = p.default
      continue
    }
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
      return Either.left({ status: 400, code: "invalid_params", message: `params.${name} must be a string` })
    }
    out[name] = String(v)
  }
  return Either.right(out)
}

export const jsonBody = (response: DispatchedResponse): unknown => {
  if (response.text === "") return null
  try {
    return JSON.parse(response.text)
  } catch {
    return response.text
  }
}

/** POST with the params as a JSON body. */
export const jsonPost = (
  path: string,
  params: Readonly<Record<string, ParamSpec>>,
  summary: string,
  rateLimit: RateLimitPolicy | null = null
): BatchOperation => ({
  summary,
  endpoint: `POST ${path}`,
  params,
  rateLimit,
  toRequest: (p) => Either.map(scalars(p, params), (body) => ({ method: "POST", url: path, body })),
  toBody: jsonBody
})

/** GET with the params in the query string; `:name` segments of the path are filled from params. */
export const getWithQuery = (
  path: string,
  params: Readonly<Record<string, ParamSpec>>,
  summary: string,
  rateLimit: RateLimitPolicy | null = null
): BatchOperation => ({
  summary,
  endpoint: `GET ${path.replace(/:([a-z_]+)/g, "{$1}")}`,
  params,
  rateLimit,
  toRequest: (p) =>
    Either.map(scalars(p, params), (values) => {
      const query = new URLSearchParams()
      let url = path
      for (const [k, v] of Object.entries(values)) {
        if (url.includes(`:${k}`)) url = url.replace(`:${k}`, encodeURIComponent(v))
        else query.set(k, v)
      }
      // A path parameter that was not given stays empty (the endpoint answers its own 404/400).
      url = url.replace(/:([a-z_]+)/g, "")
      const qs = query.toString()
      return { method: "GET", url: qs === "" ? url : `${url}?${qs}` }
    }),
  toBody: jsonBody
})

/** Not available yet: answered 501 inside the envelope. */
export const notYet = (params: Readonly<Record<string, ParamSpec>>, summary: string, message: string): BatchOperation => ({
  summary,
  endpoint: null,
  params,
  rateLimit: null,
  toRequest: () => Either.left({ status: 501, code: "not_implemented", message }),
  toBody: jsonBody
})

/** search_domain: the NDJSON stream collected into `{query, results: rows}` (rows exactly as streamed). */
const searchDomain: BatchOperation = {
  summary: "Availability of a domain and, for a plain label.tld, its alternate TLDs (the rows of POST /api/domain/search)",
  endpoint: "POST /api/domain/search",
  params: { q: required("The domain to check") },
  rateLimit: searchLimits.search,
  toRequest: (p) => Either.map(scalars(p, { q: required("") }), (body) => ({ method: "POST", url: "/api/domain/search", body })),
  toBody: (response, params) => {
    if (response.status >= 400 || !response.contentType.startsWith("application/x-ndjson")) return jsonBody(response)
    const events = response.text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as { kind: string })
    return { query: params.q ?? null, results: events.filter((e) => e.kind === "row") }
  }
}

export const OPERATIONS: Readonly<Record<string, BatchOperation>> = {
  search_domain: searchDomain,
  tld_registration_price: getWithQuery("/api/pricing/tld", {
    tld: required("The TLD, e.g. com"),
    op: optional("Lifecycle operation", { enum: ["register", "renew", "transfer", "restore"], default: "register" })
  }, "Price of a TLD in USD cents for one year (GET /api/pricing/tld; op defaults to register here)", catalogueLimits.pricing),
  tld_requirements: getWithQuery(
    "/api/tlds/:tld/metadata",
    { tld: required("The TLD, e.g. com") },
    "Registration requirements of a TLD (GET /api/tlds/{tld}/metadata)",
    catalogueLimits.metadata
  ),
  whois_lookup: jsonPost(
    "/api/tools/whois",
    { domain: required("The domain to look up") },
    "WHOIS/RDAP registration data of a domain (POST /api/tools/whois; counts against the daily WHOIS quota)",
    lookupLimits.whois
  )
}

export const MAX_OPERATIONS = 20
