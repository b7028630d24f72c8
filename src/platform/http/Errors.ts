/**
 * The two error shapes (docs/api-conventions.md "Errors"), as HttpApi error schemas.
 *
 * Typed (every endpoint unless stated):
 *   {"error":{"code":"snake_case","message":"…","request_id":"req_…","details":…}}
 * Legacy (GET /api/pricing/tld, GET /api/v1/domains/available):
 *   {"error":"human message"}
 *
 * Handlers fail with the classes below (`new NotFound({ code: "tld_not_found", message })`) and
 * endpoints declare them with `.addError(NotFound)`. One class per HTTP status keeps OpenAPI
 * honest; the `code` field says which problem it is. The wire schema of each class is a
 * transformation to the envelope, which picks up the request id of the fiber serving the request.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Effect, FiberRef, ParseResult, Schema } from "effect"

/** How much of a caller's input an error message may quote back. */
export const MAX_ECHO = 100

/**
 * A caller-supplied value as quoted in an error message: cut to `max` characters with a marker,
 * so an error never repeats a large input (a 10 MB body must not become a 20 MB error).
 */
export const clipEcho = (value: string, max = MAX_ECHO): string =>
  value.length <= max ? value : `${value.slice(0, max)}…(${value.length - max} more characters)`

/** Set per request by the request-id middleware; read when an error is encoded. */
export const CurrentRequestId = FiberRef.unsafeMake<string>("req_unknown")

const ErrorInner = Schema.Struct({
  code: Schema.String.annotations({ description: "Stable snake_case error code", examples: ["not_found"] }),
  message: Schema.String.annotations({ description: "Human-readable explanation" }),
  request_id: Schema.String.annotations({ description: "The request's X-Request-Id" }),
  details: Schema.optional(Schema.Unknown).annotations({ description: "Structured detail, e.g. which fields failed" })
})

export const ErrorEnvelope = Schema.Struct({ error: ErrorInner }).annotations({
  identifier: "Error",
  description: "Typed error shape shared by the public surface, the Partner API and admin endpoints."
})
export type ErrorEnvelope = typeof ErrorEnvelope.Type

export const LegacyErrorEnvelope = Schema.Struct({
  error: Schema.String.annotations({ description: "Human-readable message" })
}).annotations({ identifier: "LegacyError", description: "Legacy error shape of the older keyed/pricing endpoints." })
export type LegacyErrorEnvelope = typeof LegacyErrorEnvelope.Type

const ErrorFields = {
  code: Schema.String,
  message: Schema.String,
  details: Schema.optional(Schema.Unknown)
}

interface ErrorLike {
  readonly code: string
  readonly message: string
  readonly details?: unknown
}

const typedWire = <Self extends ErrorLike>(
  cls: Schema.Schema<Self, any> & (new(args: ErrorLike) => Self),
  status: number,
  description: string
): Schema.Schema<Self, ErrorEnvelope> =>
  Schema.transformOrFail(ErrorEnvelope, Schema.typeSchema(cls), {
    strict: true,
    decode: ({ error }) =>
      ParseResult.succeed(
        new cls(
          error.details === undefined
            ? { code: error.code, message: error.message }
            : { code: error.code, message: error.message, details: error.details }
        )
      ),
    encode: (e) =>
      Effect.map(FiberRef.get(CurrentRequestId), (request_id): ErrorEnvelope => ({
        error: e.details === undefined
          ? { code: e.code, message: e.message, request_id }
          : { code: e.code, message: e.message, request_id, details: e.details }
      }))
  }).annotations({ ...HttpApiSchema.annotations({ status }), description })

const legacyWire = <Self extends ErrorLike>(
  cls: Schema.Schema<Self, any> & (new(args: ErrorLike) => Self),
  status: number,
  description: string
): Schema.Schema<Self, typeof LegacyErrorEnvelope.Encoded> =>
  Schema.transform(LegacyErrorEnvelope, Schema.typeSchema(cls), {
    strict: true,
    decode: ({ error }) => new cls({ code: "legacy", message: error }),
    encode: (e) => ({ error: e.message })
  }).annotations({ ...HttpApiSchema.annotations({ status }), description })

// ---------------------------------------------------------------------------
// Domain errors: named after what went wrong, raised by services, encoded at the edge.

/** What a domain error is on the wire: its stable code, its HTTP status, and what it means. */
export interface DomainErrorMeta {
  readonly code: string
  readonly status: number
  readonly description: string
}

const DomainErrorFields = {
  message: Schema.String,
  details: Schema.optional(Schema.Unknown)
}

/**
 * A service's error, named after what went wrong (`QuoteExpired`, `ClientNotFound`), carrying
 * its wire code and status as static metadata, so the service never knows HTTP:
 *
 *   export class QuoteExpired extends DomainError<QuoteExpired>()("QuoteExpired", {
 *     code: "quote_expired", status: 409, description: "The quote is past its 10 minutes"
 *   }) {}
 *   // service:  yield* new QuoteExpired({ message: "quote expired at …" })
 *   // endpoint: .addError(errorWire(QuoteExpired))
 *
 * `errorWire` encodes it into the typed envelope `{"error":{code,message,request_id,details?}}`.
 */
export const DomainError = <Self>() =>
<Tag extends string>(
  tag: Tag,
  meta: DomainErrorMeta
): Schema.TaggedErrorClass<Self, Tag, { readonly _tag: Schema.tag<Tag> } & typeof DomainErrorFields> & {
  readonly meta: DomainErrorMeta
} => {
  // `Schema.TaggedError<Self>()` checks that Self is given at the class declaration; here Self is
  // still a type parameter, so the check is deferred to the caller's `extends DomainError<X>()`.
  const Base = Schema.TaggedError<{ readonly _: unique symbol }>()(tag, DomainErrorFields)
  return class extends Base {
    static readonly meta: DomainErrorMeta = meta
  } as any // seam: Self is still a type parameter here; the caller's `extends DomainError<X>()` fixes it
}

/**
 * The HTTP status a value's `DomainError` class declares, if it is one: for doors that answer a
 * service's refusal as a page (the consoles) rather than through `errorWire`.
 */
export const declaredStatus = (e: unknown): number | undefined =>
  typeof e === "object" && e !== null
    ? (e.constructor as { readonly meta?: Partial<DomainErrorMeta> }).meta?.status
    : undefined

interface DomainErrorClass<A> extends Schema.Schema<A, any> {
  new(args: { readonly message: string; readonly details?: unknown }): A
  readonly meta: DomainErrorMeta
  readonly identifier: string
}

const wires = new WeakMap<object, Schema.Schema<any, ErrorEnvelope>>()

/**
 * The wire schema of a domain error for `.addError(...)`: the typed envelope with the class's
 * code (a literal, so OpenAPI documents each code), at the class's status. One schema per class.
 * A typed client (HttpApiClient) decodes an error to the first class declared at its status that
 * accepts it: classes with distinct codes come back as themselves, provided they are declared
 * before a generic class (BadRequest, NotFound, Conflict, Forbidden: any code), middleware errors
 * included; classes sharing a status and code are one answer on the wire, and decode as the first.
 */
export const errorWire = <A extends { readonly _tag: string; readonly message: string; readonly details?: unknown }>(
  cls: DomainErrorClass<A>
): Schema.Schema<A, ErrorEnvelope> => {
  const known = wires.get(cls)
  if (known !== undefined) return known as Schema.Schema<A, ErrorEnvelope>
  if (legacyWires.has(cls)) throw new Error(oneWire(cls.identifier))
  const { code, description, status } = cls.meta
  const Envelope = Schema.Struct({
    error: Schema.Struct({ ...ErrorInner.fields, code: Schema.Literal(code) })
  }).annotations({ identifier: cls.identifier, description: `${description} (\`${code}\`)` })
  const wire = Schema.transformOrFail(Envelope, Schema.typeSchema(cls), {
    strict: true,
    decode: ({ error }) =>
      ParseResult.succeed(
        new cls(
          error.details === undefined ? { message: error.message } : { message: error.message, details: error.details }
        )
      ),
    encode: (e) =>
      Effect.map(FiberRef.get(CurrentRequestId), (request_id) => ({
        error: e.details === undefined
          ? { code, message: e.message, request_id }
          : { code, message: e.message, request_id, details: e.details }
      }))
  }).annotations({ ...HttpApiSchema.annotations({ status }), description: `${description} (\`${code}\`)` })
  wires.set(cls, wire)
  return wire
}

/** An API encodes an error class one way (the first declaration wins everywhere), so each has one wire. */
const oneWire = (name: string) =>
  `${name} is declared with both errorWire and legacyErrorWire: give the legacy surface its own class`

const legacyWires = new WeakMap<object, Schema.Schema<any, typeof LegacyErrorEnvelope.Encoded>>()

/**
 * The legacy wire schema of a domain error, for the two legacy endpoints (`{"error":"message"}`
 * at the class's status): the same error a service raises, in the shape that edge publishes.
 */
export const legacyErrorWire = <
  A extends { readonly _tag: string; readonly message: string; readonly details?: unknown }
>(
  cls: DomainErrorClass<A>
): Schema.Schema<A, typeof LegacyErrorEnvelope.Encoded> => {
  const known = legacyWires.get(cls)
  if (known !== undefined) return known as Schema.Schema<A, typeof LegacyErrorEnvelope.Encoded>
  if (wires.has(cls)) throw new Error(oneWire(cls.identifier))
  const { code, description, status } = cls.meta
  const wire = Schema.transform(LegacyErrorEnvelope, Schema.typeSchema(cls), {
    strict: true,
    decode: ({ error }) => new cls({ message: error }),
    encode: (e) => ({ error: e.message })
  }).annotations({
    ...HttpApiSchema.annotations({ status }),
    description: `${description} (\`${code}\`, legacy shape)`
  })
  legacyWires.set(cls, wire)
  return wire
}

/**
 * The wire a domain error's class was declared with (`errorWire` or `legacyErrorWire`, when an
 * endpoint's `.addError` built it), with its status: for a door that answers the error outside
 * that endpoint (a batch operation). A class no endpoint declared gets the typed envelope.
 */
export const declaredWireOf = (
  e: object
): { readonly wire: Schema.Schema<any, any>; readonly status: number } | undefined => {
  const cls = e.constructor as Partial<DomainErrorClass<any>>
  if (cls.meta === undefined) return undefined
  const wire = wires.get(cls) ?? legacyWires.get(cls) ?? errorWire(cls as DomainErrorClass<any>)
  return { wire, status: cls.meta.status }
}

// ---------------------------------------------------------------------------
// Typed errors, one class per status. `code` defaults per class; override it per problem.

export class BadRequestError extends Schema.TaggedError<BadRequestError>()("BadRequest", ErrorFields) {}
export class UnauthorizedError extends Schema.TaggedError<UnauthorizedError>()("Unauthorized", ErrorFields) {}
export class ForbiddenError extends Schema.TaggedError<ForbiddenError>()("Forbidden", ErrorFields) {}
export class NotFoundError extends Schema.TaggedError<NotFoundError>()("NotFound", ErrorFields) {}
export class ConflictError extends Schema.TaggedError<ConflictError>()("Conflict", ErrorFields) {}
export class UnprocessableError extends Schema.TaggedError<UnprocessableError>()("Unprocessable", ErrorFields) {}
export class RateLimitedError extends Schema.TaggedError<RateLimitedError>()("RateLimited", ErrorFields) {}
export class InternalServerError extends Schema.TaggedError<InternalServerError>()("InternalError", ErrorFields) {}
export class UnavailableError extends Schema.TaggedError<UnavailableError>()("Unavailable", ErrorFields) {}

/** Wire schemas to pass to `.addError(...)`. */
export const BadRequest = typedWire(BadRequestError, 400, "Bad request: missing or malformed input")
export const Unauthorized = typedWire(UnauthorizedError, 401, "Missing or invalid credentials")
export const Forbidden = typedWire(ForbiddenError, 403, "Authenticated, but not allowed")
export const NotFound = typedWire(NotFoundError, 404, "No such resource")
export const Conflict = typedWire(ConflictError, 409, "Conflicts with the current state")
export const Unprocessable = typedWire(UnprocessableError, 422, "Well-formed but not acceptable")
export const RateLimited = typedWire(RateLimitedError, 429, "Rate limit exceeded; see Retry-After")
export const InternalError = typedWire(InternalServerError, 500, "Unexpected error; retry with back-off")
export const Unavailable = typedWire(UnavailableError, 503, "Temporarily unavailable")

// Legacy shape: separate classes so a handler cannot send the wrong shape by accident.
export class LegacyBadRequestError
  extends Schema.TaggedError<LegacyBadRequestError>()("LegacyBadRequest", ErrorFields)
{}
export class LegacyUnauthorizedError
  extends Schema.TaggedError<LegacyUnauthorizedError>()("LegacyUnauthorized", ErrorFields)
{}

export const LegacyBadRequest = legacyWire(LegacyBadRequestError, 400, "Bad request (legacy error shape)")
export const LegacyUnauthorized = legacyWire(
  LegacyUnauthorizedError,
  401,
  "Missing or invalid key/secret (legacy error shape)"
)
