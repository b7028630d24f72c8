/**
 * SQL of the marketplace inventory (`listings`, migrations 0040/0041). Market owns the table: other
 * capabilities read and move listings through the Market service. Rows are decoded by the schemas
 * below; a database error is a defect here (`Effect.orDie`), once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import {
  type ListingFilters,
  type ListingPosition,
  type ListingSort,
  NO_PRICE_ASC,
  NO_PRICE_DESC
} from "../domain/ListingOrder.js"

export const Environment = Schema.Literal("live", "sandbox")
export type Environment = typeof Environment.Type

export const ListingStatus = Schema.Literal("active", "pending", "sold", "withdrawn")
export type ListingStatus = typeof ListingStatus.Type

export const ListingRow = Schema.Struct({
  id: Schema.String,
  environment: Environment,
  domain: Schema.String,
  domain_unicode: Schema.String,
  tld: Schema.String,
  bin_price_cents: Schema.NullOr(Schema.Number),
  floor_price_cents: Schema.NullOr(Schema.Number),
  currency: Schema.String,
  status: ListingStatus,
  locked: Schema.Boolean,
  is_demo: Schema.Boolean,
  description: Schema.NullOr(Schema.String),
  listed_at: Schema.DateFromSelf,
  /** `listed_at` as RFC 3339 with microseconds (UTC): the exact keyset key of `newest`. */
  listed_key: Schema.String
})
export type ListingRow = typeof ListingRow.Type

/**
 * What a sale needs of a listing, read under the row lock (`lockForSale`), with its hold: the
 * seller a quote holds it for and until when (src/domain/Reservation.ts; both null when none).
 */
export const ListingForSale = Schema.Struct({
  id: ListingRow.fields.id,
  domain: ListingRow.fields.domain,
  bin_price_cents: ListingRow.fields.bin_price_cents,
  currency: ListingRow.fields.currency,
  status: ListingRow.fields.status,
  locked: ListingRow.fields.locked,
  held_by: Schema.NullOr(Schema.String),
  held_until: Schema.NullOr(Schema.DateFromSelf)
})
export type ListingForSale = typeof ListingForSale.Type

export const NewListing = Schema.Struct({
  ...ListingRow.fields,
  label: Schema.String
}).pipe(Schema.omit("listed_key"))
export type NewListing = typeof NewListing.Type

/** The statuses a sale moves a listing through (pending while an order is open, sold, active again). */
export type SaleStatus = Exclude<ListingStatus, "withdrawn">

/** Statuses that still show a domain as for sale (a pending sale shows it locked). */
export const LISTED_STATUSES = ["active", "pending"] as const

/** Statuses of a listing the marketplace offers or sold (all but withdrawn): what the availability engine reads. */
export const SALE_STATUSES = ["active", "pending", "sold"] as const

const COLUMNS = `id, environment, domain, domain_unicode, tld, bin_price_cents, floor_price_cents, currency, status,
  locked, is_demo, description, listed_at,
  to_char(listed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as listed_key`

/**
 * The market's part of a statement that reads the listings of names with its own data (the
 * availability engine's local facts, src/availability/Repo.ts): the listing offered, being sold
 * or sold (not withdrawn) of the name `domain` (a column or value of the caller's statement) in
 * `environment`, for a `left join lateral`. Its columns are `ListingRow`'s. This module owns
 * `listings`; a caller places this fragment, it writes no SQL of it.
 */
export const listedAt = (sql: SqlClient.SqlClient, environment: Environment, domain: Fragment): Fragment =>
  sql`select ${sql.literal(COLUMNS)} from listings
      where environment = ${environment} and domain = ${domain} and status in ${sql.in(SALE_STATUSES)}`

/** `%`, `_` and `\` are literal inside the substring. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(COLUMNS)
  const PRICE_ASC_KEY = sql.literal(`coalesce(bin_price_cents, ${NO_PRICE_ASC})`)
  const PRICE_DESC_KEY = sql.literal(`coalesce(bin_price_cents, ${NO_PRICE_DESC})`)

  const filterClauses = (f: ListingFilters): Array<Fragment> => {
    const clauses: Array<Fragment> = [sql`environment = ${f.environment}`, sql`status = 'active'`]
    if (f.q !== undefined && f.q !== "") {
      // ASCII queries match the A-label column, others the Unicode one; each has a trigram index.
      clauses.push(
        /^[\x00-\x7f]*$/.test(f.q)
          ? sql`domain ilike ${likePattern(f.q)}`
          : sql`domain_unicode ilike ${likePattern(f.q)}`
      )
    }
    if (f.tld !== undefined) clauses.push(sql`tld = ${f.tld}`)
    if (f.maxCents !== undefined) clauses.push(sql`bin_price_cents <= ${f.maxCents}`)
    return clauses
  }

  const keysetClause = (sort: ListingSort, after: ListingPosition): Fragment => {
    switch (sort) {
      case "newest":
        return sql`(listed_at, id) < (${after.key}::timestamptz, ${after.id})`
      case "price_asc":
        return sql`(${PRICE_ASC_KEY}, id) > (${after.key}::bigint, ${after.id})`
      case "price_desc":
        return sql`(${PRICE_DESC_KEY}, id) < (${after.key}::bigint, ${after.id})`
    }
  }

  const orderBy = (sort: ListingSort): Fragment => {
    switch (sort) {
      case "newest":
        return sql`order by listed_at desc, id desc`
      case "price_asc":
        return sql`order by ${PRICE_ASC_KEY} asc, id asc`
      case "price_desc":
        return sql`order by ${PRICE_DESC_KEY} desc, id desc`
    }
  }

  const byDomain = SqlSchema.findOne({
    Request: Schema.Struct({ environment: Environment, domain: Schema.String }),
    Result: ListingRow,
    execute: ({ domain, environment }) =>
      sql`select ${columns} from listings where environment = ${environment} and domain = ${domain}`
  })
  const lockForSale = SqlSchema.findOne({
    Request: Schema.Struct({ environment: Environment, domain: Schema.String }),
    Result: ListingForSale,
    execute: ({ domain, environment }) =>
      sql`select id, domain, bin_price_cents, currency, status, locked, held_by, held_until from listings
          where environment = ${environment} and domain = ${domain} for update`
  })
  const holdOn = SqlSchema.findOne({
    Request: Schema.Struct({ environment: Environment, domain: Schema.String }),
    Result: ListingForSale,
    execute: ({ domain, environment }) =>
      sql`select id, domain, bin_price_cents, currency, status, locked, held_by, held_until from listings
          where environment = ${environment} and domain = ${domain}`
  })
  const setHold = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, holder: Schema.String, until: Schema.DateFromSelf }),
    execute: ({ holder, id, until }) =>
      sql`update listings set held_by = ${holder}, held_until = ${until}, updated_at = now() where id = ${id}`
  })
  const clearHold = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, holder: Schema.String, until: Schema.DateFromSelf }),
    execute: ({ holder, id, until }) =>
      sql`update listings set held_by = null, held_until = null, updated_at = now()
          where id = ${id} and held_by = ${holder} and held_until = ${until}`
  })
  const setStatus = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, status: ListingStatus }),
    execute: ({ id, status }) => sql`update listings set status = ${status}, updated_at = now() where id = ${id}`
  })
  const Total = Schema.Struct({ total: Schema.Number })
  const upsert = SqlSchema.void({
    Request: Schema.Array(NewListing),
    execute: (rows) =>
      sql`
        insert into listings ${sql.insert(rows as Array<NewListing>)}
        on conflict (environment, domain) do update set
          bin_price_cents = excluded.bin_price_cents,
          floor_price_cents = excluded.floor_price_cents,
          currency = excluded.currency,
          status = excluded.status,
          locked = excluded.locked,
          is_demo = excluded.is_demo,
          description = excluded.description,
          updated_at = now()`
  })
  const insertMissing = SqlSchema.void({
    Request: Schema.Array(NewListing),
    execute: (rows) =>
      sql`insert into listings ${sql.insert(rows as Array<NewListing>)} on conflict (environment, domain) do nothing`
  })
  const hasDemo = SqlSchema.single({
    Request: Schema.Void,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: () => sql`select count(*)::int as n from listings where is_demo`
  })

  return {
    /**
     * One page: `limit` rows (the caller asks one more to know whether another page follows),
     * after a keyset position, or at an offset.
     */
    page: (
      filters: ListingFilters,
      sort: ListingSort,
      limit: number,
      from: { readonly after: ListingPosition } | { readonly offset: number }
    ) => {
      const clauses = filterClauses(filters)
      if ("after" in from) clauses.push(keysetClause(sort, from.after))
      const offset = "offset" in from && from.offset > 0 ? sql`offset ${from.offset}` : sql``
      return SqlSchema.findAll({
        Request: Schema.Void,
        Result: ListingRow,
        execute: () =>
          sql`
            select ${columns} from listings
            where ${sql.and(clauses)}
            ${orderBy(sort)}
            limit ${limit} ${offset}`
      })(undefined).pipe(Effect.orDie)
    },

    count: (filters: ListingFilters) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Total,
        execute: () => sql`select count(*)::bigint as total from listings where ${sql.and(filterClauses(filters))}`
      })(undefined).pipe(Effect.map((row) => row.total), Effect.orDie),

    byDomain: (environment: Environment, domain: string) => Effect.orDie(byDomain({ environment, domain })),

    /** The listing row of a domain, locked (`for update`) until the caller's transaction ends. */
    lockForSale: (environment: Environment, domain: string) => Effect.orDie(lockForSale({ environment, domain })),

    /** The listing of a domain with its hold, unlocked (what a page shows). */
    saleStateOf: (environment: Environment, domain: string) => Effect.orDie(holdOn({ environment, domain })),

    /** Records a hold on a listing (the caller holds its row lock and applied the rule). */
    setHold: (id: string, holder: string, until: Date) => Effect.orDie(setHold({ id, holder, until })),

    /** Removes a hold if it is still exactly (holder, until): compare-and-clear, no lock needed. */
    clearHold: (id: string, holder: string, until: Date) => Effect.orDie(clearHold({ id, holder, until })),

    /** Moves a listing through a sale (in the caller's transaction). */
    setStatus: (id: string, status: SaleStatus) => Effect.orDie(setStatus({ id, status })),

    /**
     * The listing held for a new order (`pending`), as the body of a data-modifying CTE of the
     * caller's statement: the order insert and the hold are one round trip (POST /orders,
     * bench/partner.ts). The sale consumes any quote's hold.
     */
    holdFragment: (id: string): Fragment =>
      sql`update listings set status = 'pending', held_by = null, held_until = null, updated_at = now() where id = ${id}`,

    /** Insert or update by (environment, domain); the id and listing time of an existing row are kept. */
    upsert: (rows: ReadonlyArray<NewListing>) =>
      rows.length === 0 ? Effect.succeed(0) : Effect.as(Effect.orDie(upsert(rows)), rows.length),

    /** Insert rows that are not there yet (seeding never overwrites an operator's row). */
    insertMissing: (rows: ReadonlyArray<NewListing>) =>
      rows.length === 0 ? Effect.succeed(0) : Effect.as(Effect.orDie(insertMissing(rows)), rows.length),

    removeDemo: Effect.orDie(sql`delete from listings where is_demo`.pipe(Effect.asVoid)),

    hasDemo: Effect.orDie(Effect.map(hasDemo(undefined), (r) => r.n > 0))
  }
})

export class MarketRepo extends Effect.Service<MarketRepo>()("app/MarketRepo", { effect: make }) {}
