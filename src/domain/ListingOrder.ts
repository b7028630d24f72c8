/**
 * The marketplace's listing order (pure): its sorts, its filters, and the keyset position after a
 * row — the row's sort key and its id, the unique tie-breaker. A listing cursor (PageCursor.ts)
 * carries such a position, bound to `listingScope(filters, sort)`.
 *
 * The sort key is the listing time (RFC 3339, microseconds) for `newest` and the price key
 * (integer cents; listings without a buy-now price sort last) for the price sorts.
 */
import { Schema } from "effect"

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

/** Price key of a listing in a price sort: listings without a buy-now price go last either way. */
export const NO_PRICE_ASC = 9_007_199_254_740_991
export const NO_PRICE_DESC = -1
export const priceKey = (sort: "price_asc" | "price_desc", binCents: number | null): number =>
  binCents ?? (sort === "price_asc" ? NO_PRICE_ASC : NO_PRICE_DESC)

/** The keyset position after a row: a listing time (`newest`) or a price key, and the row's id. */
export const ListingPosition = Schema.Struct({
  key: Schema.Union(
    Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)),
    Schema.Int.pipe(Schema.between(NO_PRICE_DESC, NO_PRICE_ASC))
  ),
  id: Schema.String
})
export type ListingPosition = typeof ListingPosition.Type

/**
 * What a listing cursor is bound to, and what a page count is cached by: every filter and the
 * sort, in a fixed order (an absent filter is null), so equal queries give equal scopes.
 */
export const listingScope = (filters: ListingFilters, sort: ListingSort) =>
  [filters.environment, sort, filters.q ?? null, filters.tld ?? null, filters.maxCents ?? null] as const
