/**
 * The marketplace inventory service: browsing listing pages, finding the listing of a domain
 * (the availability engine reads listings through Repo.ts's `listedAt` fragment), importing listings, and seeding the demo catalogue and the
 * synthetic sandbox inventory.
 *
 * Pages are keyset-paginated in the order of the chosen sort with the listing id as unique
 * tie-breaker, so a cursor walk never skips nor repeats a row that exists throughout the walk,
 * and a page costs one index range scan at any depth. Offset pages work too, and also return a
 * cursor, so a walk may switch to cursors at any point.
 */
import { Clock, Duration, Effect, Option } from "effect"
import {
  type ListingFilters,
  type ListingPosition,
  listingScope,
  type ListingSort,
  priceKey
} from "../domain/ListingOrder.js"
import * as reservation from "../domain/Reservation.js"
import { claim, type Hold, holdOf } from "../domain/Reservation.js"
import { AppConfig } from "../platform/Config.js"
import { pageCursor, PAGED_LISTS } from "../platform/http/PageCursor.js"
import { makeId } from "../platform/Ids.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { demoListings, sandboxListings } from "./data/index.js"
import { ListingHeld, ListingNotFound } from "./Errors.js"
import type { ListingCsvRow } from "./ListingCsv.js"
import {
  type Environment,
  LISTED_STATUSES,
  type ListingForSale,
  type ListingRow,
  MarketRepo,
  type NewListing,
  type SaleStatus
} from "./Repo.js"
import { MarketConfig } from "./Settings.js"

export type { Environment, ListingForSale, ListingRow } from "./Repo.js"
/** The claimant of the marketplace's own sales (`/buy/`, referral sales) in the reservation rule. */
export const MARKETPLACE_SELLER = "ptn_marketplace"

export const MAX_PAGE_LIMIT = 200
export const DEFAULT_PAGE_LIMIT = 24

export interface BrowseQuery {
  readonly filters: ListingFilters
  readonly sort: ListingSort
  readonly limit: number
  readonly offset: number
  readonly cursor: string | undefined
}

export interface BrowsePage {
  readonly rows: ReadonlyArray<ListingRow>
  readonly page: {
    readonly limit: number
    readonly offset: number
    readonly total: number
    readonly has_more: boolean
    readonly next_cursor: string | null
  }
}

/** The keyset position after a row in a sort. */
export const positionOf = (row: ListingRow, sort: ListingSort): ListingPosition =>
  sort === "newest" ? { key: row.listed_key, id: row.id } : { key: priceKey(sort, row.bin_price_cents), id: row.id }

const toNew = (
  row: ListingCsvRow,
  environment: Environment,
  isDemo: boolean,
  now: Date,
  index: number
): NewListing => {
  // Rows of one import without a listing time keep their file order in `newest` (first = newest).
  const listedAt = row.listedAt ?? new Date(now.getTime() - index)
  return {
    id: makeId("lst", listedAt.getTime()),
    environment,
    domain: row.domain,
    domain_unicode: row.domainUnicode,
    tld: row.tld,
    label: row.label,
    bin_price_cents: row.binPriceCents,
    floor_price_cents: row.floorPriceCents,
    currency: row.currency,
    status: row.status,
    locked: row.locked,
    is_demo: isDemo,
    description: row.description,
    listed_at: listedAt
  }
}

const make = Effect.gen(function*() {
  const repo = yield* MarketRepo
  const secret = yield* ServiceSecret
  const config = yield* AppConfig
  const marketSettings = yield* MarketConfig
  const countTtlMs = Duration.toMillis(marketSettings.countCacheTtl)
  const counts = new Map<string, { readonly total: number; readonly at: number }>()

  /** Counting a large catalogue is the costly part of a page: reuse a recent count of the same filters. */
  const total = (filters: ListingFilters) =>
    Effect.gen(function*() {
      const key = JSON.stringify(listingScope(filters, "newest"))
      const now = yield* Clock.currentTimeMillis
      const hit = counts.get(key)
      if (hit !== undefined && now - hit.at < countTtlMs) return hit.total
      const n = yield* repo.count(filters)
      if (countTtlMs > 0) {
        if (counts.size > 1_000) counts.clear()
        counts.set(key, { total: n, at: now })
      }
      return n
    })

  const browse = (query: BrowseQuery) =>
    Effect.gen(function*() {
      // Anyone may follow a listing cursor (holder null); it is encrypted, not just signed: a
      // price-sort cursor holds the last row's price, which callers without pricing:read must not read.
      const cursor = pageCursor(secret, PAGED_LISTS.listings, null, listingScope(query.filters, query.sort))
      const after = yield* cursor.read(query.cursor)
      const from: { after: ListingPosition } | { offset: number } = after === null
        ? { offset: query.offset }
        : { after }
      const [rows, n] = yield* Effect.all([
        repo.page(query.filters, query.sort, query.limit + 1, from),
        total(query.filters)
      ], {
        concurrency: 2
      })
      const hasMore = rows.length > query.limit
      const pageRows = hasMore ? rows.slice(0, query.limit) : rows
      const last = pageRows[pageRows.length - 1]
      return {
        rows: pageRows,
        page: {
          limit: query.limit,
          offset: "offset" in from ? from.offset : 0,
          total: n,
          has_more: hasMore,
          next_cursor: cursor.next(last && positionOf(last, query.sort), hasMore)
        }
      } satisfies BrowsePage
    })

  const getListing = (environment: Environment, domain: string) => repo.byDomain(environment, domain)

  /** The listing of a domain that shows as for sale (active, or pending with a sale in progress). */
  const listedListing = (environment: Environment, domain: string) =>
    Effect.flatMap(
      getListing(environment, domain),
      (row) =>
        Option.isSome(row) && (LISTED_STATUSES as ReadonlyArray<string>).includes(row.value.status)
          ? Effect.succeed(row.value)
          : Effect.fail(ListingNotFound.of(domain))
    )

  const importListings = (rows: ReadonlyArray<ListingCsvRow>, environment: Environment) =>
    Effect.gen(function*() {
      const now = new Date(yield* Clock.currentTimeMillis)
      let imported = 0
      // Chunks keep each statement's parameter count well under PostgreSQL's limit.
      for (let i = 0; i < rows.length; i += 1_000) {
        const chunk = rows.slice(i, i + 1_000).map((r, j) => toNew(r, environment, false, now, i + j))
        imported += yield* repo.upsert(chunk)
      }
      counts.clear()
      return imported
    })

  const demoEnabled = marketSettings.demoListings === "auto"
    ? Option.isNone(config.databaseUrl)
    : marketSettings.demoListings === "true"

  /** Start-up seeding: demo catalogue (or its removal) and the sandbox inventory. Idempotent. */
  const seed = Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    if (demoEnabled) {
      yield* repo.insertMissing(
        demoListings().map((r, i) => toNew(r, "live", true, new Date(now.getTime() - i * 3_600_000), i))
      )
    } else if (yield* repo.hasDemo) {
      yield* repo.removeDemo
    }
    if (marketSettings.sandboxInventory) {
      yield* repo.insertMissing(sandboxListings.map((r, i) => toNew(r, "sandbox", false, now, i)))
    }
    counts.clear()
  })

  /** The reservation rule on a listing read under its lock: the listing, or `ListingHeld`. */
  const admit = <L extends ListingForSale>(listing: L, claimant: string, now: Date) => {
    const c = claim(holdOf(listing.held_by, listing.held_until), claimant, now)
    return c.ok ? Effect.succeed(listing) : Effect.fail(ListingHeld.until(listing.domain, c.heldUntil))
  }

  /**
   * A sale's moves of a listing, for every channel that sells one (partner orders and quotes,
   * hosted checkout, /buy, brokerage). They run in the caller's transaction: the statements use
   * the transaction's connection.
   */
  const sales = {
    /**
     * The listing row of a domain, locked until the caller's transaction ends, claimed for
     * `claimant` (the selling partner's id, or the marketplace's): another seller's live hold
     * fails with `ListingHeld` (src/domain/Reservation.ts). None when the domain has no listing.
     */
    lockForSale: (environment: Environment, domain: string, claimant: string) =>
      Effect.gen(function*() {
        const row = yield* repo.lockForSale(environment, domain)
        if (Option.isNone(row)) return row
        return Option.some(yield* admit(row.value, claimant, new Date(yield* Clock.currentTimeMillis)))
      }),
    /** The same rule on a listing the caller locked by other means (the order's one-round-trip lock). */
    admit: (listing: ListingForSale, claimant: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => admit(listing, claimant, new Date(now))),
    /**
     * Holds a listing locked by `lockForSale(…, holder)` for `holder` until `until` (a quote);
     * the holder's own longer hold is kept.
     */
    hold: (listing: ListingForSale, holder: string, until: Date) =>
      Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        const h = reservation.hold(holdOf(listing.held_by, listing.held_until), holder, until, now)
        if (!h.ok) return yield* ListingHeld.until(listing.domain, h.heldUntil)
        yield* repo.setHold(listing.id, h.next.holder, h.next.until)
        return h.next
      }),
    /**
     * Gives back a hold taken by `hold` that ended early (a checkout payment declined or
     * abandoned): cleared only while it is still exactly that hold, so a newer or longer hold,
     * or a sale that consumed it, is left as it is.
     */
    release: (listingId: string, held: Hold) => repo.clearHold(listingId, held.holder, held.until),
    /**
     * When another seller's live hold would refuse `claimant` (unlocked read, for a page that must
     * not offer a payment form): the hold's end, or none.
     */
    heldAgainst: (environment: Environment, domain: string, claimant: string) =>
      Effect.gen(function*() {
        const row = yield* repo.saleStateOf(environment, domain)
        if (Option.isNone(row)) return Option.none<Date>()
        const c = claim(
          holdOf(row.value.held_by, row.value.held_until),
          claimant,
          new Date(yield* Clock.currentTimeMillis)
        )
        return c.ok ? Option.none<Date>() : Option.some(c.heldUntil)
      }),
    /** pending (an order is open), sold (transfer completed), active (refunded or cancelled). */
    setStatus: (listingId: string, status: SaleStatus) => repo.setStatus(listingId, status),
    /**
     * The listing held (`pending`) for a new order, as a data-modifying CTE body for the caller's
     * insert: one round trip for POST /orders (bench/partner.ts). The sale consumes any quote's hold.
     */
    holdFragment: repo.holdFragment
  } as const

  return { browse, getListing, listedListing, importListings, seed, demoEnabled, sales } as const
})

export class Market extends Effect.Service<Market>()("app/Market", {
  effect: make,
  dependencies: [MarketRepo.Default]
}) {
  /** Kept for the existing wiring (src/market/Layer.ts). */
  static readonly Live = Market.Default
}
