/**
 * The batch operations (the same names as the agent tools). An operation either calls its
 * service directly (`search_domain`: the Search service, no HTTP in between) or is dispatched to
 * the single-call endpoint it stands for (src/batch/Dispatch.ts). Adding a dispatched operation
 * is one entry in `OPERATIONS`:
 *
 *   whois_lookup: jsonPost("/api/tools/whois", { domain: required("The domain to look up") }, "…"),
 *
 * Params are turned into strings first (`scalars`); a param that is not a scalar fails only its
 * operation with 400 `invalid_params`. Every other params problem gets the single call's answer.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import { Effect, Either, ParseResult, Schema } from "effect"
import { limits as catalogueLimits } from "../catalogue/Api.js"
import { limits as lookupLimits } from "../lookup/Api.js"
import { clipIssueMessage, describeDecodeError, meaningfulIssues } from "../platform/DecodeErrors.js"
import { BadRequest, BadRequestError, clipEcho, errorWire, RateLimited } from "../platform/Errors.js"
import { enforceWith, RateLimiter, type RateLimitPolicy } from "../platform/RateLimit.js"
import { CurrentResponseHeaders } from "../platform/ResponseHeaders.js"
import { limits as searchLimits, SearchBody } from "../search/Api.js"
import { InvalidSearchQuery } from "../search/Errors.js"
import { Search } from "../search/Search.js"
import type { DispatchedResponse, SyntheticRequest } from "./Dispatch.js"
import { InvalidParams } from "./Errors.js"

export interface ParamSpec {
  readonly type: "string"
  readonly required: boolean
  readonly description: string
  readonly enum?: ReadonlyArray<string>
  readonly default?: string
}

/** One operation's answer: the status and body its single call would have answered. */
export interface OperationResult {
  readonly status: number
  readonly body: unknown
}

/** Who runs the batch, as far as an operation needs to know: operations run anonymously. */
export interface BatchCaller {
  /** The client IP (per-IP limits are shared with the single calls). */
  readonly ip: string
  readonly requestId: string
}

interface Described {
  readonly summary: string
  /** The single call this operation stands for, e.g. `POST /api/domain/search`. */
  readonly endpoint: string
  readonly params: Readonly<Record<string, ParamSpec>>
  readonly rateLimit: RateLimitPolicy | null
}

/** Answered by calling the service. */
export interface DirectOperation extends Described {
  readonly _tag: "Direct"
  readonly run: (
    params: Readonly<Record<string, string>>,
    caller: BatchCaller
  ) => Effect.Effect<OperationResult, never, Search | RateLimiter>
}

/** Answered by dispatching the single call through the service's own HttpApp. */
export interface DispatchedOperation extends Described {
  readonly _tag: "Dispatched"
  readonly toRequest: (params: Readonly<Record<string, string>>) => SyntheticRequest
}

export type BatchOperation = DirectOperation | DispatchedOperation

const required = (description: string): ParamSpec => ({ type: "string", required: true, description })
const optional = (description: string, extra?: Partial<ParamSpec>): ParamSpec => ({
  type: "string",
  required: false,
  description,
  ...extra
})

/** Scalars become strings (defaults filled in); anything else cannot be used. */
export const scalars = (
  params: Readonly<Record<string, unknown>>,
  spec: Readonly<Record<string, ParamSpec>>
): Either.Either<Record<string, string>, InvalidParams> => {
  const out: Record<string, string> = {}
  for (const [name, p] of Object.entries(spec)) {
    const v = params[name]
    if (v === undefined || v === null) {
      if (p.default !== undefined) out[name] = p.default
      continue
    }
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
      return Either.left(new InvalidParams({ message: `params.${name} must be a string` }))
    }
    out[name] = String(v)
  }
  return Either.right(out)
}

/** An error as the result of an operation: its wire schema's envelope, at its status. */
export const failed = <A>(wire: Schema.Schema<A, any>, status: number) => (e: A): Effect.Effect<OperationResult> =>
  Effect.map(Effect.orDie(Schema.encode(wire)(e)), (body) => ({ status, body }))

/** The single call's body from a dispatched response: JSON, else the text, else null. */
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
): DispatchedOperation => ({
  _tag: "Dispatched",
  summary,
  endpoint: `POST ${path}`,
  params,
  rateLimit,
  toRequest: (body) => ({ method: "POST", url: path, body })
})

/** GET with the params in the query string; `:name` segments of the path are filled from params. */
export const getWithQuery = (
  path: string,
  params: Readonly<Record<string, ParamSpec>>,
  summary: string,
  rateLimit: RateLimitPolicy | null = null
): DispatchedOperation => ({
  _tag: "Dispatched",
  summary,
  endpoint: `GET ${path.replace(/:([a-z_]+)/g, "{$1}")}`,
  params,
  rateLimit,
  toRequest: (values) => {
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
  }
})

/**
 * The 400 `validation_error` the endpoint's own payload decode answers (platform/HttpMiddleware.ts
 * `ApiErrorsLive`), for params that do not match the single call's payload schema.
 */
const validationError = (error: ParseResult.ParseError) =>
  Effect.map(HttpApiError.HttpApiDecodeError.fromParseError(error), (e) =>
    new BadRequestError({
      code: "validation_error",
      message: describeDecodeError(e),
      details: meaningfulIssues(e.issues).slice(0, 20).map((i) => ({
        path: i.path.map((p) => (typeof p === "string" ? clipEcho(p) : p)),
        message: clipIssueMessage(i.message)
      }))
    }))

/**
 * Counts one request against the caller's per-IP bucket of `policy`, shared with the single call.
 * The RateLimit headers belong to the single call's response, which a batch does not send: they
 * go to a scratch record rather than onto the batch's own response.
 */
const admit = (policy: RateLimitPolicy, ip: string) =>
  Effect.flatMap(RateLimiter, (limiter) => Effect.locally(enforceWith(limiter, policy, ip), CurrentResponseHeaders, {}))

/**
 * search_domain: `{query, results: rows}`, the rows exactly as the stream writes them, from the
 * Search service. Same checks in the same order as POST /api/domain/search: the payload schema
 * (not counted), the per-IP limit, then the query (a bad one counts); anonymous, so marketplace
 * prices stay masked.
 */
const searchDomain: DirectOperation = {
  _tag: "Direct",
  summary:
    "Availability of a domain and, for a plain label.tld, its alternate TLDs (the rows of POST /api/domain/search)",
  endpoint: "POST /api/domain/search",
  params: { q: required("The domain to check") },
  rateLimit: searchLimits.search,
  run: (params, caller) =>
    Effect.gen(function*() {
      const { q } = yield* Schema.decodeUnknown(SearchBody)(params).pipe(
        Effect.catchAll((e) => Effect.flip(validationError(e)))
      )
      yield* admit(searchLimits.search, caller.ip)
      const search = yield* Search
      const plan = yield* search.parse(q)
      const rows = yield* search.rows(plan, { requestId: caller.requestId, canSeeMarketPrices: false, startedAt: 0 })
      return { status: 200, body: { query: q, results: rows } }
    }).pipe(
      Effect.catchTags({
        BadRequest: failed(BadRequest, 400),
        RateLimited: failed(RateLimited, 429),
        InvalidSearchQuery: failed(errorWire(InvalidSearchQuery), InvalidSearchQuery.meta.status)
      })
    )
}

export const OPERATIONS: Readonly<Record<string, BatchOperation>> = {
  search_domain: searchDomain,
  tld_registration_price: getWithQuery(
    "/api/pricing/tld",
    {
      tld: required("The TLD, e.g. com"),
      op: optional("Lifecycle operation", { enum: ["register", "renew", "transfer", "restore"], default: "register" })
    },
    "Price of a TLD in USD cents for one year (GET /api/pricing/tld; op defaults to register here)",
    catalogueLimits.pricing
  ),
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
