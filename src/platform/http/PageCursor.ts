/**
 * Paged lists at the edge: the one `InvalidCursor`, the list of every paged list with the answer
 * its docs give a bad cursor, and the reader/writer of their cursors (domain/PageCursor.ts) sealed
 * with SERVICE_SECRET.
 *
 * - Every paged list is named in `PAGED_LISTS`: its name is sealed into its cursors (a cursor of
 *   one list is refused by every other), and its refusal says how a bad cursor is answered there.
 * - The answers differ by surface, as documented, and stay so: the marketplace listings
 *   `invalid_cursor` with `details: {field, problem}` (docs/market.md, CONTRACT "Listings page");
 *   the partner money lists `invalid_cursor` (docs/money.md); the other Partner API lists
 *   `validation_error` (docs/partner.md webhook deliveries, docs/brokerage.md), whose messages
 *   name the field first ("cursor: …") as every Partner API `validation_error` does.
 * - One class carries them all: `InvalidCursor`, whose `code` is the list's. Its wire schema is
 *   one (one tag, one wire), 400 with either code; a typed client takes a `validation_error` for
 *   an InvalidCursor only when its message names the cursor, so the other 400s of a list keep
 *   their own classes.
 *
 * The contract to keep: a list's refusal is byte for byte what its docs show; a cursor is opaque,
 * so its format may change (cursors issued before a change are refused once, like any stale one).
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Effect, Either, FiberRef, Option, ParseResult, Schema } from "effect"
import { ListingPosition } from "../../domain/ListingOrder.js"
import { type CursorProblem, decodeCursor, encodeCursor, type Sealer } from "../../domain/PageCursor.js"
import type { ServiceSecretShape } from "../ServiceSecret.js"
import { CurrentRequestId, ErrorEnvelope } from "./Errors.js"

const CursorCode = Schema.Literal("invalid_cursor", "validation_error")
export type CursorCode = typeof CursorCode.Type

/**
 * A cursor this list did not issue (to this caller), or issued for other filters or another sort.
 * `code` is the list's documented code (`PAGED_LISTS`); the listings add `details: {field, problem}`.
 */
export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", {
  code: CursorCode,
  message: Schema.String,
  details: Schema.optional(Schema.Unknown)
}) {}

const DESCRIPTION =
  "The cursor is malformed, was not issued by this list (to this caller), or was issued for other filters or another sort (`invalid_cursor`; `validation_error` on the Partner API lists that document it)"

const Envelope = Schema.Struct({
  error: Schema.Struct({ ...ErrorEnvelope.fields.error.fields, code: CursorCode }).pipe(
    Schema.filter((e) => e.code === "invalid_cursor" || e.message.startsWith("cursor:"))
  )
}).annotations({ identifier: "InvalidCursor", description: DESCRIPTION })

/** The wire schema of `InvalidCursor`, for `.addError(...)` on every paged list. */
export const InvalidCursorWire: Schema.Schema<InvalidCursor, typeof Envelope.Encoded> = Schema.transformOrFail(
  Envelope,
  Schema.typeSchema(InvalidCursor),
  {
    strict: true,
    decode: ({ error }) =>
      ParseResult.succeed(
        new InvalidCursor(
          error.details === undefined
            ? { code: error.code, message: error.message }
            : { code: error.code, message: error.message, details: error.details }
        )
      ),
    encode: (e) =>
      Effect.map(FiberRef.get(CurrentRequestId), (request_id) => ({
        error: e.details === undefined
          ? { code: e.code, message: e.message, request_id }
          : { code: e.code, message: e.message, request_id, details: e.details }
      }))
  }
).annotations({ ...HttpApiSchema.annotations({ status: 400 }), description: DESCRIPTION })

/** How a list answers a bad cursor: its code, its two messages, and whether `details` says which. */
export interface CursorRefusal {
  readonly code: CursorCode
  readonly details: boolean
  readonly malformed: string
  readonly otherQuery: string
}

const PARTNER_WORDS = {
  malformed: "cursor: not a cursor this endpoint issued to you",
  otherQuery: "cursor: was issued for other filters; send the same filters as the first page"
}

/** docs/market.md "Browse listings" (also the storefront's /market, which words its own page). */
const MARKET: CursorRefusal = {
  code: "invalid_cursor",
  details: true,
  malformed: "The cursor is not one this service issued; use page.next_cursor exactly as returned",
  otherQuery:
    "This cursor was issued for other filters or another sort; repeat the query that returned it, or start again without a cursor"
}
/** docs/money.md: "a cursor from another endpoint, credential or set of filters → invalid_cursor". */
const MONEY: CursorRefusal = { code: "invalid_cursor", details: false, ...PARTNER_WORDS }
/** docs/partner.md (webhook deliveries), docs/brokerage.md: 400 `validation_error`. */
const PARTNER: CursorRefusal = { code: "validation_error", details: false, ...PARTNER_WORDS }

/**
 * The consoles' lists, partner (docs/consoles.md#business) and operator
 * (docs/consoles.md#operator-console): a 400 page with this message.
 */
const CONSOLE: CursorRefusal = {
  code: "invalid_cursor",
  details: false,
  malformed: "cursor: not a page link this console gave you; start again from the first page",
  otherQuery: "cursor: was issued for other filters; start again from the first page"
}

/** A paged list: its name (sealed into its cursors), its position's schema, its refusal. */
export interface PagedList<P> {
  readonly name: string
  /** `METHOD path` of the operations that page it, as in OpenAPI (for readers and tests). */
  readonly operations: ReadonlyArray<string>
  readonly position: Schema.Schema<P, any>
  readonly refusal: CursorRefusal
}

const list = <P>(
  name: string,
  operations: ReadonlyArray<string>,
  position: Schema.Schema<P, any>,
  refusal: CursorRefusal
): PagedList<P> => ({ name, operations, position, refusal })

/** The id of the last row of a page: the lists ordered newest first by id continue before it. */
const LastId = Schema.String

/** Every paged list of the service. A new list is added here, with the answer its docs give. */
export const PAGED_LISTS = {
  listings: list("listings", ["GET /api/market/listings", "GET /market"], ListingPosition, MARKET),
  partnerOrders: list("partner-orders", ["GET /api/partner/v1/orders"], LastId, PARTNER),
  brokerageCases: list("brokerage-cases", ["GET /api/partner/v1/brokerage"], LastId, PARTNER),
  webhookDeliveries: list("webhook-deliveries", ["GET /api/partner/v1/webhook-deliveries"], LastId, PARTNER),
  referralLinks: list("referral-links", ["GET /api/partner/v1/links"], LastId, PARTNER),
  referralSales: list("referral-sales", ["GET /api/partner/v1/me/sales"], LastId, PARTNER),
  referralCommissions: list("referral-commissions", ["GET /api/partner/v1/me/commissions"], LastId, PARTNER),
  settlements: list("settlements", ["GET /api/partner/v1/settlements"], LastId, MONEY),
  transactions: list("transactions", ["GET /api/partner/v1/transactions"], LastId, MONEY),
  payouts: list("payouts", ["GET /api/partner/v1/payouts"], LastId, MONEY),
  myPayouts: list("me-payouts", ["GET /api/partner/v1/me/payouts"], LastId, MONEY),
  adminStatements: list("admin-statements", ["GET /api/admin/statements"], LastId, MONEY),
  auditLog: list("audit-log", ["GET /api/admin/audit"], LastId, MONEY),
  consoleOrders: list("console-orders", ["GET /console/orders"], LastId, CONSOLE),
  consoleCheckoutSessions: list("console-checkout-sessions", ["GET /console/checkout-sessions"], LastId, CONSOLE),
  consoleBrokerage: list("console-brokerage", ["GET /console/brokerage"], LastId, CONSOLE),
  consoleTransactions: list("console-transactions", ["GET /console/money"], LastId, CONSOLE),
  opsPayouts: list("ops-payouts", ["GET /ops/money"], LastId, CONSOLE),
  opsCartItems: list("ops-cart-items", ["GET /ops/carts"], LastId, CONSOLE),
  opsAudit: list("ops-audit", ["GET /ops/audit"], LastId, CONSOLE)
} as const

const codeByOperation = new Map(
  Object.values(PAGED_LISTS).flatMap((l) => l.operations.map((o) => [o, l.refusal.code] as const))
)

/** The code a bad cursor answers on an operation (`METHOD path`), if it pages a list (OpenAPI examples). */
export const cursorCodeOf = (operation: string): CursorCode | undefined => codeByOperation.get(operation)

/** The list's answer to a refused cursor. */
export const refusal = (refusal: CursorRefusal, problem: CursorProblem): InvalidCursor => {
  const message = problem === "other_query" ? refusal.otherQuery : refusal.malformed
  return new InvalidCursor(
    refusal.details
      ? { code: refusal.code, message, details: { field: "cursor", problem } }
      : { code: refusal.code, message }
  )
}

/** One key (HKDF purpose) for every list: the list's name inside the seal keeps them apart. */
const PURPOSE = "page-cursor"

/** `v1.<iv>.<tag>.<ciphertext>` with a 12-byte iv and a full 16-byte tag, each part canonical base64url. */
const canonicalSeal = (token: string): boolean => {
  const parts = token.split(".")
  if (parts.length !== 4 || parts[0] !== "v1") return false
  const bytes = parts.slice(1).map((p) => Buffer.from(p, "base64url"))
  return bytes.every((b, i) => b.toString("base64url") === parts[i + 1]) && bytes[0]!.length === 12 &&
    bytes[1]!.length === 16
}

/**
 * Cursors sealed with SERVICE_SECRET (AES-256-GCM: encrypted and authenticated). Only the spelling
 * `seal` writes is opened (one token, one spelling; no shortened tag), so any altered cursor is refused.
 */
export const cursorSealer = (secrets: ServiceSecretShape): Sealer => ({
  seal: (plaintext) => secrets.encrypt(PURPOSE, plaintext),
  open: (token) => canonicalSeal(token) ? secrets.decrypt(PURPOSE, token) : Option.none()
})

/**
 * The cursors of one page request: `list`, issued to `holder` (a credential id; null when anyone
 * may follow them), bound to `filters` (JSON, in a fixed order). `read` gives the position to
 * continue after (null on the first page) or the list's `InvalidCursor`; `next` the cursor after
 * a page (null when there is no more).
 */
export const pageCursor = <P>(
  secrets: ServiceSecretShape,
  paged: PagedList<P>,
  holder: string | null,
  filters: unknown
) => {
  const sealer = cursorSealer(secrets)
  const scope = { list: paged.name, holder, filters }
  return {
    read: (token: string | undefined): Effect.Effect<P | null, InvalidCursor> =>
      token === undefined
        ? Effect.succeed(null)
        : Either.match(decodeCursor(sealer, paged.position, scope, token), {
          onLeft: (problem) => Effect.fail(refusal(paged.refusal, problem)),
          onRight: (position) => Effect.succeed(position)
        }),
    next: (last: P | undefined, hasMore: boolean): string | null =>
      hasMore && last !== undefined ? encodeCursor(sealer, paged.position, scope, last) : null
  }
}
