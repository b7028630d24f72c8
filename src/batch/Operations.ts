/**
 * The batch operations (the same names as the agent tools). Each calls the service its single
 * call's handler calls, with the same checks in the same order (the single call's input schema,
 * its per-IP limit, the service), anonymously, and answers the status and body that call would
 * have answered. Nothing goes through HTTP. Adding an operation is one entry in `OPERATIONS`.
 *
 * Params are turned into strings first (`scalars`); a param that is not a scalar fails only its
 * operation with 400 `invalid_params`. Every other params problem gets the single call's answer.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import { Cause, Effect, Either, FiberRef, type ParseResult, Schema } from "effect"
import { limits as catalogueLimits, TldPrice, TldPriceParams } from "../catalogue/Api.js"
import { Catalogue } from "../catalogue/Catalogue.js"
import { InvalidPriceTld, InvalidTld, TldNotFound } from "../catalogue/Errors.js"
import { TldMetadata } from "../catalogue/TldMetadata.js"
import { limits as lookupLimits, WhoisRequest } from "../lookup/Api.js"
import { WhoisNotFound, WhoisQuotaSpent, WhoisUnavailable } from "../lookup/Errors.js"
import { Lookups } from "../lookup/Lookups.js"
import { causeIsDatabaseOutage } from "../platform/db/DatabaseOutage.js"
import { internalErrorBody, unavailableBody } from "../platform/http/ApiErrors.js"
import { validationFailure } from "../platform/http/DecodeErrors.js"
import { domainInput, InvalidDomain } from "../platform/http/DomainInput.js"
import {
  BadRequest,
  BadRequestError,
  clipEcho,
  CurrentRequestId,
  errorWire,
  LegacyBadRequest,
  LegacyBadRequestError,
  legacyErrorWire,
  RateLimited
} from "../platform/http/Errors.js"
import { enforceWith, RateLimiter, type RateLimitPolicy } from "../platform/http/RateLimit.js"
import { CurrentResponseHeaders } from "../platform/http/ResponseHeaders.js"
import { limits as searchLimits, SearchBody } from "../search/Api.js"
import { Search } from "../search/Search.js"
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

/** The services the operations call. */
export type OperationServices = Search | Catalogue | Lookups | RateLimiter

export interface BatchOperation {
  readonly summary: string
  /** The single call this operation stands for, e.g. `POST /api/domain/search`. */
  readonly endpoint: string
  readonly params: Readonly<Record<string, ParamSpec>>
  readonly rateLimit: RateLimitPolicy | null
  readonly run: (
    params: Readonly<Record<string, string>>,
    caller: BatchCaller
  ) => Effect.Effect<OperationResult, never, OperationServices>
}

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

/** A success as the result of an operation: the single call's success schema, at its status. */
const answered = <A, I>(schema: Schema.Schema<A, I>, status = 200) => (value: A): Effect.Effect<OperationResult> =>
  Effect.map(Effect.orDie(Schema.encode(schema)(value)), (body) => ({ status, body }))

/**
 * The params decoded by the single call's input schema, or the 400 `validation_error` its own
 * decode answers (platform/http/ApiErrors.ts), in the shape of that endpoint.
 */
const decodeInput = <A, I>(
  schema: Schema.Schema<A, I>,
  params: Readonly<Record<string, string>>,
  from: "payload" | "query"
) => {
  // Both fields of the one query schema decoded here (`tld`, `op`) are single strings, which the
  // endpoint's decoder leaves as they are (no array wrapping): the params decode as given.
  void from
  return Schema.decodeUnknown(schema)(params).pipe(
    Effect.catchAll((e: ParseResult.ParseError) =>
      Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(e), (decodeError) => Effect.fail(decodeError))
    )
  )
}

const asValidationError = (e: HttpApiError.HttpApiDecodeError) => {
  const { details, message } = validationFailure(e)
  return new BadRequestError({ code: "validation_error", message, details })
}

const asLegacyValidationError = (e: HttpApiError.HttpApiDecodeError) =>
  new LegacyBadRequestError({ code: "validation_error", message: validationFailure(e).message })

/**
 * Counts one request against the caller's per-IP bucket of `policy`, shared with the single call.
 * The RateLimit headers belong to the single call's response, which a batch does not send: they
 * go to a scratch record rather than onto the batch's own response.
 */
const admit = (policy: RateLimitPolicy, ip: string) =>
  Effect.flatMap(RateLimiter, (limiter) => Effect.locally(enforceWith(limiter, policy, ip), CurrentResponseHeaders, {}))

/** What an operation answers when it dies: what its single call would (platform/http/ApiErrors.ts). */
const diedLikeItsEndpoint = (legacy: boolean) => (cause: Cause.Cause<never>) =>
  Effect.gen(function*() {
    if (Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)
    const requestId = yield* FiberRef.get(CurrentRequestId)
    if (causeIsDatabaseOutage(cause)) {
      yield* Effect.logWarning("database unavailable; answered 503").pipe(
        Effect.annotateLogs({ error: String(Cause.squash(cause)) })
      )
      return { status: 503, body: unavailableBody(legacy, requestId) } satisfies OperationResult
    }
    yield* Effect.logError("batch operation failed unexpectedly", cause)
    return { status: 500, body: internalErrorBody(requestId) } satisfies OperationResult
  })

/**
 * search_domain: `{query, results: rows}`, the rows exactly as the stream writes them, from the
 * Search service. Same checks in the same order as POST /api/domain/search: the payload schema
 * (not counted), the per-IP limit, then the query (a bad one counts); anonymous, so marketplace
 * prices stay masked.
 */
const searchDomain: BatchOperation = {
  summary:
    "Availability of a domain and, for a plain label.tld, its alternate TLDs (the rows of POST /api/domain/search)",
  endpoint: "POST /api/domain/search",
  params: { q: required("The domain to check") },
  rateLimit: searchLimits.search,
  run: (params, caller) =>
    Effect.gen(function*() {
      const { q } = yield* Effect.mapError(decodeInput(SearchBody, params, "payload"), asValidationError)
      yield* admit(searchLimits.search, caller.ip)
      const search = yield* Search
      const plan = yield* search.parse(q)
      const rows = yield* search.rows(plan, { requestId: caller.requestId, marketPrices: "none", startedAt: 0 })
      return { status: 200, body: { query: q, results: rows } }
    }).pipe(
      Effect.catchTags({
        BadRequest: failed(BadRequest, 400),
        RateLimited: failed(RateLimited, 429),
        InvalidDomain: failed(errorWire(InvalidDomain), InvalidDomain.meta.status)
      })
    )
}

/** tld_registration_price: GET /api/pricing/tld (legacy error shape), `op` defaulting to register here. */
const tldRegistrationPrice: BatchOperation = {
  summary: "Price of a TLD in USD cents for one year (GET /api/pricing/tld; op defaults to register here)",
  endpoint: "GET /api/pricing/tld",
  params: {
    tld: required("The TLD, e.g. com"),
    op: optional("Lifecycle operation", { enum: ["register", "renew", "transfer", "restore"], default: "register" })
  },
  rateLimit: catalogueLimits.pricing,
  run: (params, caller) =>
    Effect.gen(function*() {
      const { op, tld } = yield* Effect.mapError(decodeInput(TldPriceParams, params, "query"), asLegacyValidationError)
      yield* admit(catalogueLimits.pricing, caller.ip)
      return yield* Effect.flatMap(Catalogue, (c) => c.tldPrice(tld, op))
    }).pipe(
      Effect.flatMap(answered(TldPrice)),
      Effect.catchTags({
        LegacyBadRequest: failed(LegacyBadRequest, 400),
        RateLimited: failed(RateLimited, 429),
        InvalidPriceTld: failed(legacyErrorWire(InvalidPriceTld), InvalidPriceTld.meta.status)
      }),
      Effect.catchAllCause(diedLikeItsEndpoint(true))
    )
}

/**
 * A `tld` the single call's URL could not carry: the path `/api/tlds/{tld}/metadata` with an empty
 * segment, or with a dot segment the URL resolves away, matches no route (the 404 the router
 * answers, naming the path the request reached).
 */
const UNROUTED_TLDS: Readonly<Record<string, string>> = {
  "": "/api/tlds//metadata",
  ".": "/api/tlds/metadata",
  "..": "/api/metadata"
}

/** tld_requirements: GET /api/tlds/{tld}/metadata. */
const tldRequirements: BatchOperation = {
  summary: "Registration requirements of a TLD (GET /api/tlds/{tld}/metadata)",
  endpoint: "GET /api/tlds/{tld}/metadata",
  params: { tld: required("The TLD, e.g. com") },
  rateLimit: catalogueLimits.metadata,
  run: (params, caller) =>
    Effect.gen(function*() {
      const tld = params.tld ?? ""
      if (Object.hasOwn(UNROUTED_TLDS, tld)) {
        const requestId = yield* FiberRef.get(CurrentRequestId)
        const message = `No route for GET ${clipEcho(UNROUTED_TLDS[tld])}`
        return { status: 404, body: { error: { code: "not_found", message, request_id: requestId } } }
      }
      yield* admit(catalogueLimits.metadata, caller.ip)
      const metadata = yield* Effect.flatMap(Catalogue, (c) => c.metadataOf(tld))
      return yield* answered(TldMetadata)(metadata)
    }).pipe(
      Effect.catchTags({
        RateLimited: failed(RateLimited, 429),
        InvalidTld: failed(errorWire(InvalidTld), InvalidTld.meta.status),
        TldNotFound: failed(errorWire(TldNotFound), TldNotFound.meta.status)
      }),
      Effect.catchAllCause(diedLikeItsEndpoint(false))
    )
}

/** whois_lookup: POST /api/tools/whois, anonymous (the per-IP daily quota), without an Idempotency-Key. */
const whoisLookup: BatchOperation = {
  summary: "WHOIS/RDAP registration data of a domain (POST /api/tools/whois; counts against the daily WHOIS quota)",
  endpoint: "POST /api/tools/whois",
  params: { domain: required("The domain to look up") },
  rateLimit: lookupLimits.whois,
  run: (params, caller) =>
    Effect.gen(function*() {
      const { domain } = yield* Effect.mapError(decodeInput(WhoisRequest, params, "payload"), asValidationError)
      const name = yield* domainInput("domain", domain)
      const lookups = yield* Lookups
      const answer = yield* lookups.whois(name.ascii, lookups.quotaOf({ _tag: "Anonymous" }, caller.ip))
      return { status: 201, body: answer }
    }).pipe(
      Effect.catchTags({
        BadRequest: failed(BadRequest, 400),
        InvalidDomain: failed(errorWire(InvalidDomain), InvalidDomain.meta.status),
        WhoisQuotaSpent: failed(errorWire(WhoisQuotaSpent), WhoisQuotaSpent.meta.status),
        WhoisNotFound: failed(errorWire(WhoisNotFound), WhoisNotFound.meta.status),
        WhoisUnavailable: failed(errorWire(WhoisUnavailable), WhoisUnavailable.meta.status)
      }),
      Effect.catchAllCause(diedLikeItsEndpoint(false))
    )
}

export const OPERATIONS: Readonly<Record<string, BatchOperation>> = {
  search_domain: searchDomain,
  tld_registration_price: tldRegistrationPrice,
  tld_requirements: tldRequirements,
  whois_lookup: whoisLookup
}
