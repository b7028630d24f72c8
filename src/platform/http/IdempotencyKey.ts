/**
 * The `Idempotency-Key` request header: one rule, decoded once at the edge.
 *
 * - `IdempotencyKey` is the header's schema (1–255 visible ASCII characters, branded): every
 *   endpoint that takes a key declares it in its `headers`, so its handler receives a decoded key
 *   (or none) and never checks one.
 * - `IDEMPOTENT_OPERATIONS` is the one list of those operations: whether the key is required,
 *   whether a repeat replays, and the 400 a missing or malformed key answers there. The answers
 *   differ by surface, as documented (public tools `invalid_idempotency_key`, docs/lookup.md and
 *   docs/search.md; the Partner API its `validation_error` and, on POST /orders,
 *   `missing_idempotency_key`, docs/partner.md); OpenAPI declares the header from this list too.
 * - A key the schema refuses is an HttpApi decode failure like any other; ApiErrors.ts asks
 *   `keyRefusal` first, which turns it into the operation's answer. Only the header's own failure
 *   is turned: a payload that fails first (it is decoded before the headers) is the usual
 *   `validation_error`.
 *
 * The contract to keep: each operation's answer to a bad key stays byte for byte what its docs
 * show (test/platform/http/idempotency-key.test.ts pins them).
 */
import type * as HttpApiError from "@effect/platform/HttpApiError"
import { Schema } from "effect"
import { BadRequestError, DomainError } from "./Errors.js"

/** The header's name as HttpApi decodes it (headers are lower-cased). */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key"

/** Idempotency-Key syntax accepted by the service: 1–255 visible ASCII characters. */
export const IdempotencyKey = Schema.String.pipe(
  Schema.pattern(/^[\x21-\x7e]{1,255}$/, { message: () => "must be 1-255 visible ASCII characters" }),
  Schema.brand("IdempotencyKey")
)
export type IdempotencyKey = typeof IdempotencyKey.Type

/** The key is not that (public tools: WHOIS lookups and the search stream). */
export class InvalidIdempotencyKey extends DomainError<InvalidIdempotencyKey>()("InvalidIdempotencyKey", {
  code: "invalid_idempotency_key",
  status: 400,
  description: "Idempotency-Key must be 1-255 visible ASCII characters"
}) {}

/** An operation that requires a key came without one: a retry could do the work twice. */
export class MissingIdempotencyKey extends DomainError<MissingIdempotencyKey>()("MissingIdempotencyKey", {
  code: "missing_idempotency_key",
  status: 400,
  description: "POST /orders requires an Idempotency-Key header"
}) {}

/** What an operation answers to a malformed key: 400 with this code, message and details. */
interface KeyRefusal {
  readonly code: "invalid_idempotency_key" | "validation_error"
  readonly message: string
  readonly details?: unknown
}

export interface IdempotentOperation {
  /** `METHOD path` as in OpenAPI. */
  readonly operation: string
  /** Set when the key is required: the message of its 400 `missing_idempotency_key`. */
  readonly required?: string
  /** Whether a repeat answers the stored response with `Idempotent-Replayed: true`. */
  readonly replays: boolean
  /** The answer to a key that is not 1–255 visible ASCII characters (an empty one included). */
  readonly malformed: KeyRefusal
}

/** The Partner API's answer (docs/partner.md, Errors: "missing or malformed field; the message names it"). */
const PARTNER_MALFORMED: KeyRefusal = {
  code: "validation_error",
  message: "Idempotency-Key: 1-255 visible ASCII characters"
}

/**
 * The operations that honour `Idempotency-Key`. Add an operation here when its `headers` declare
 * `IdempotencyKey`: the OpenAPI document declares the header pair from this list
 * (src/platform/openapi/OpenApiHeaders.ts) and a bad key is answered from it.
 */
export const IDEMPOTENT_OPERATIONS: ReadonlyArray<IdempotentOperation> = [
  {
    operation: "POST /api/partner/v1/orders",
    required:
      "POST /orders requires an Idempotency-Key header (1-255 visible ASCII characters, e.g. a UUID v4, the same on every retry of this order)",
    replays: true,
    malformed: PARTNER_MALFORMED
  },
  { operation: "POST /api/partner/v1/checkout-session", replays: true, malformed: PARTNER_MALFORMED },
  { operation: "POST /api/partner/v1/brokerage", replays: true, malformed: PARTNER_MALFORMED },
  {
    operation: "POST /api/tools/whois",
    replays: true,
    malformed: { code: "invalid_idempotency_key", message: "Idempotency-Key: 1-255 visible ASCII characters" }
  },
  {
    operation: "POST /api/domain/search",
    replays: false,
    malformed: {
      code: "invalid_idempotency_key",
      message: "Idempotency-Key must be 1 to 255 visible ASCII characters",
      details: { field: "Idempotency-Key" }
    }
  }
]

const byOperation = new Map(IDEMPOTENT_OPERATIONS.map((o) => [o.operation, o]))

/**
 * The answer to a request whose Idempotency-Key header failed its schema, or undefined when the
 * failure is not the header's (or the operation takes no key): the usual `validation_error` then.
 * `path` is the request path without its query.
 */
export const keyRefusal = (
  method: string,
  path: string,
  header: string | undefined,
  e: HttpApiError.HttpApiDecodeError
): InvalidIdempotencyKey | MissingIdempotencyKey | BadRequestError | undefined => {
  if (!e.issues.some((i) => i.path[0] === IDEMPOTENCY_KEY_HEADER)) return undefined
  const route = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path
  const operation = byOperation.get(`${method} ${route}`)
  if (operation === undefined) return undefined
  // Node trims a header value's outer spaces: a blank key arrives as "".
  if (operation.required !== undefined && (header === undefined || header.trim() === "")) {
    return new MissingIdempotencyKey({ message: operation.required })
  }
  const { code, details, message } = operation.malformed
  const fields = details === undefined ? { message } : { message, details }
  return code === "invalid_idempotency_key"
    ? new InvalidIdempotencyKey(fields)
    : new BadRequestError({ code, ...fields })
}
