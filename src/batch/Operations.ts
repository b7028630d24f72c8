/**
 * The batch operations: public operations' records (../operations/Operation.ts), each declared
 * beside its service, run as their single calls would run them and answered with the status and
 * body those calls would have answered. Nothing goes through HTTP. Every operation takes the same
 * steps (`batchOf`): count the call against the single call's limit (per IP, the edge's key; the
 * RateLimit headers go to a scratch record, as a batch's own response carries none), decode the
 * params with the record's input schema (a bad one is the single call's 400 `validation_error`,
 * legacy-shaped for the pricing read), run, and answer a refusal in its endpoint's error wire.
 *
 * Params are turned into strings first (`scalars`); a param that is not a scalar fails only its
 * operation with 400 `invalid_params`. Adding an operation is one entry in `OPERATIONS`.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import { Cause, Effect, Either, FiberRef, Option, Schema } from "effect"
import { tldRegistrationPrice, tldRequirements } from "../catalogue/Operations.js"
import { anonymous } from "../identity/Viewer.js"
import { whoisLookup } from "../lookup/Operations.js"
import { admitCall, type Operation } from "../operations/Operation.js"
import { causeIsDatabaseOutage } from "../platform/db/DatabaseOutage.js"
import { internalErrorBody, unavailableBody } from "../platform/http/ApiErrors.js"
import { validationFailure } from "../platform/http/DecodeErrors.js"
import {
  BadRequest,
  BadRequestError,
  clipEcho,
  CurrentRequestId,
  declaredWireOf,
  LegacyBadRequest,
  LegacyBadRequestError,
  RateLimited,
  RateLimitedError
} from "../platform/http/Errors.js"
import type { RateLimiter, RateLimitPolicy } from "../platform/http/RateLimit.js"
import { CurrentResponseHeaders } from "../platform/http/ResponseHeaders.js"
import { searchDomain } from "../search/Operations.js"
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

export interface BatchOperation<R = OperationServices> {
  readonly summary: string
  /** The single call this operation stands for, e.g. `POST /api/domain/search`. */
  readonly endpoint: string
  readonly params: Readonly<Record<string, ParamSpec>>
  readonly rateLimit: RateLimitPolicy | null
  readonly run: (
    params: Readonly<Record<string, string>>,
    caller: BatchCaller
  ) => Effect.Effect<OperationResult, never, R>
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

const asValidationError = (e: HttpApiError.HttpApiDecodeError) => {
  const { details, message } = validationFailure(e)
  return new BadRequestError({ code: "validation_error", message, details })
}

const asLegacyValidationError = (e: HttpApiError.HttpApiDecodeError) =>
  new LegacyBadRequestError({ code: "validation_error", message: validationFailure(e).message })

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

/** A refusal as its single call answers it: the edge's wire errors, a service's domain error. */
const refused = (e: unknown): Effect.Effect<OperationResult> => {
  if (e instanceof BadRequestError) return failed(BadRequest, 400)(e)
  if (e instanceof LegacyBadRequestError) return failed(LegacyBadRequest, 400)(e)
  if (e instanceof RateLimitedError) return failed(RateLimited, 429)(e)
  const declared = typeof e === "object" && e !== null ? declaredWireOf(e) : undefined
  return declared === undefined ? Effect.die(e) : failed(declared.wire, declared.status)(e)
}

/** The batch operation of a record: its params as documented, its single call's success status and error shape. */
const batchOf = <I, A, E, R>(
  op: Operation<I, A, E, R>,
  options: {
    readonly summary: string
    readonly params: Readonly<Record<string, ParamSpec>>
    /** The single call's success status (200 unless said). */
    readonly status?: number
    /** The single call answers the legacy `{error}` shape (GET /api/pricing/tld). */
    readonly legacy?: boolean
    /** What the single call's router answers before the operation runs (a path it cannot route). */
    readonly unrouted?: (params: Readonly<Record<string, string>>) => Effect.Effect<Option.Option<OperationResult>>
  }
): BatchOperation<R | RateLimiter> => {
  const legacy = options.legacy ?? false
  const decode = Schema.decodeUnknown(op.input)
  return {
    summary: options.summary,
    endpoint: op.endpoint,
    params: options.params,
    rateLimit: op.rateLimit,
    run: (params, caller) =>
      Effect.gen(function*() {
        const early = options.unrouted === undefined ? Option.none() : yield* options.unrouted(params)
        if (Option.isSome(early)) return early.value
        yield* Effect.locally(admitCall(op, caller), CurrentResponseHeaders, {})
        const input = yield* Effect.catchAll(decode(params), (e) =>
          Effect.flatMap(
            HttpApiError.HttpApiDecodeError.fromParseError(e),
            (d) => Effect.fail(legacy ? asLegacyValidationError(d) : asValidationError(d))
          ))
        const value = yield* op.run(input, {
          viewer: anonymous,
          ip: caller.ip,
          requestId: caller.requestId,
          progress: () => Effect.void
        })
        return yield* answered(op.output, options.status)(value)
      }).pipe(
        Effect.catchAll(refused),
        Effect.catchAllCause(diedLikeItsEndpoint(legacy))
      )
  }
}

/**
 * A \`tld\` the single call's URL could not carry: the path \`/api/tlds/{tld}/metadata\` with an empty
 * segment, or with a dot segment the URL resolves away, matches no route (the 404 the router
 * answers, naming the path the request reached).
 */
const UNROUTED_TLDS: Readonly<Record<string, string>> = {
  "": "/api/tlds//metadata",
  ".": "/api/tlds/metadata",
  "..": "/api/metadata"
}

const unroutedTld = (params: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const tld = params.tld ?? ""
    if (!Object.hasOwn(UNROUTED_TLDS, tld)) return Option.none<OperationResult>()
    const requestId = yield* FiberRef.get(CurrentRequestId)
    const message = `No route for GET ${clipEcho(UNROUTED_TLDS[tld])}`
    return Option.some<OperationResult>({
      status: 404,
      body: { error: { code: "not_found", message, request_id: requestId } }
    })
  })

/**
 * The operations, by name. search_domain answers \`{query, results: rows}\`, the rows exactly as
 * the stream writes them (anonymous, so marketplace prices stay masked); tld_registration_price's
 * \`op\` defaults to register here; whois_lookup counts against the anonymous daily quota and
 * takes no Idempotency-Key.
 */
const DECLARED = {
  search_domain: batchOf(searchDomain, {
    summary:
      "Availability of a domain and, for a plain label.tld, its alternate TLDs (the rows of POST /api/domain/search)",
    params: { q: required("The domain to check") }
  }),
  tld_registration_price: batchOf(tldRegistrationPrice, {
    summary: "Price of a TLD in USD cents for one year (GET /api/pricing/tld; op defaults to register here)",
    params: {
      tld: required("The TLD, e.g. com"),
      op: optional("Lifecycle operation", { enum: ["register", "renew", "transfer", "restore"], default: "register" })
    },
    legacy: true
  }),
  tld_requirements: batchOf(tldRequirements, {
    summary: "Registration requirements of a TLD (GET /api/tlds/{tld}/metadata)",
    params: { tld: required("The TLD, e.g. com") },
    unrouted: unroutedTld
  }),
  whois_lookup: batchOf(whoisLookup, {
    summary: "WHOIS/RDAP registration data of a domain (POST /api/tools/whois; counts against the daily WHOIS quota)",
    params: { domain: required("The domain to look up") },
    status: 201
  })
}

/** The services the operations call. */
export type OperationServices = Effect.Effect.Context<ReturnType<(typeof DECLARED)[keyof typeof DECLARED]["run"]>>

export const OPERATIONS: Readonly<Record<string, BatchOperation>> = DECLARED
