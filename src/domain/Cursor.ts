/**
 * Listing-page cursors (pure). A cursor is the position after the last row of a page — its sort
 * key and its id, the unique tie-breaker — plus a binding: a digest of the filters and the sort
 * it was issued for. The token is signed by the caller's `sign` (ServiceSecret), so a client can
 * neither forge a position nor reuse a cursor with other filters or another sort; the market
 * encrypts it (ServiceSecret.encrypt), so a price-sort cursor does not reveal the price it holds.
 *
 * Payload: `{"v":1,"b":"<binding>","k":<sort key>,"i":"<id>"}`, where the sort key is the
 * listing time (RFC 3339, microseconds) for `newest` and the price key (integer cents; listings
 * without a buy-now price sort last) for the price sorts.
 */
import { Either } from "effect"
import { createHash } from "node:crypto"

export const LISTING_SORTS = ["newest", "price_asc", "price_desc"] as const
export type ListingSort = (typeof LISTING_SORTS)[number]

export interface ListingFilters {
  readonly environment: "live" | "sandbox"
  /** Substring of the domain, already normalised (lowercase). */
  readonly q?: string | undefined
  readonly tld?: string | undefined
  /** Maximum buy-now price in USD cents. */
  readonly maxCents?: number | undefined
}

/** The keyset position after a row. */
export interface CursorPosition {
  readonly key: string | number
  readonly id: string
}

/** Price key of a listing in a price sort: listings without a buy-now price go last either way. */
export const NO_PRICE_ASC = 9_007_199_254_740_991
export const NO_PRICE_DESC = -1
export const priceKey = (sort: "price_asc" | "price_desc", binCents: number | null): number =>
  binCents ?? (sort === "price_asc" ? NO_PRICE_ASC : NO_PRICE_DESC)

/** Canonical, order-independent digest of filters + sort (hex, 128 bits). */
export const bindingOf = (filters: ListingFilters, sort: ListingSort): string => {
  const canonical = JSON.stringify([
    filters.environment,
    sort,
    filters.q ?? null,
    filters.tld ?? null,
    filters.maxCents ?? null
  ])
  return createHash("sha256").update(canonical).digest("hex").slice(0, 32)
}

export type Signer = (payload: unknown) => string
export type Verifier = (token: string) => unknown

export const encodeCursor = (sign: Signer, binding: string, position: CursorPosition): string =>
  sign({ v: 1, b: binding, k: position.key, i: position.id })

export type CursorProblem = "malformed" | "other_query"

const TIME_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

/** The position of a cursor issued for exactly these filters and this sort. */
export const decodeCursor = (
  verify: Verifier,
  token: string,
  filters: ListingFilters,
  sort: ListingSort
): Either.Either<CursorPosition, CursorProblem> => {
  if (token.length === 0 || token.length > 1024) return Either.left("malformed")
  const payload = verify(token) as { v?: unknown; b?: unknown; k?: unknown; i?: unknown } | undefined
  if (payload === undefined || payload === null || typeof payload !== "object") return Either.left("malformed")
  if (payload.v !== 1 || typeof payload.b !== "string" || typeof payload.i !== "string") return Either.left("malformed")
  if (payload.b !== bindingOf(filters, sort)) return Either.left("other_query")
  const key = payload.k
  if (sort === "newest") {
    if (typeof key !== "string" || !TIME_KEY.test(key)) return Either.left("malformed")
  } else if (typeof key !== "number" || !Number.isSafeInteger(key) || key < NO_PRICE_DESC) {
    return Either.left("malformed")
  }
  return Either.right({ key, id: payload.i })
}
