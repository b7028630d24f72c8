/** SQL of the marketplace inventory (`listings`, migrations 0040/0041). */
import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Context, Effect, Layer } from "effect"
import { type CursorPosition, type ListingFilters, type ListingSort, NO_PRICE_ASC, NO_PRICE_DESC } from "../domain/Cursor.js"

export type Environment = "live" | "sandbox"

export interface ListingRow {
  readonly id: string
  readonly environment: Environment
  readonly domain: string
  readonly domain_unicode: string
  readonly tld: string
  readonly bin_price_cents: number | null
  readonly floor_price_cents: number | null
  readonly currency: string
  readonly status: "active" | "pending" | "sold" | "withdrawn"
  readonly locked: boolean
  readonly is_demo: boolean
  readonly description: string | null
  readonly listed_at: Date
  /** `listed_at` as RFC 3339 with microseconds (UTC): the exact keyset key of `newest`. */
  readonly listed_key: string
}

export interface NewListing {
  readonly id: string
  readonly environment: Environment
  readonly domain: string
  readonly domain_unicode: string
  readonly tld: string
  readonly label: string
  readonly bin_price_cents: number | null
  readonly floor_price_cents: number | null
  readonly currency: string
  readonly status: "active" | "pending" | "sold" | "withdrawn"
  readonly locked: boolean
  readonly is_demo: boolean
  readonly description: string | null
  readonly listed_at: Date
}

/** Statuses that still show a domain as for sale (a pending sale shows it locked). */
export const LISTED_STATUSES = ["active", "pending"] as const

const COLUMNS = `id, environment, domain, domain_unicode, tld, bin_price_cents, floor_price_cents, currency, status,
  locked, is_demo, description, listed_at,
  to_char(listed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as listed_key`

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

  const keysetClause = (sort: ListingSort, after: CursorPosition): Fragment => {
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

  return {
    /**
     * One page: `limit` rows (the caller asks one more to know whether another page follows),
     * after a keyset position, or at an offset.
     */
    page: (
      filters: ListingFilters,
      sort: ListingSort,
      limit: number,
      from: { readonly after: CursorPosition } | { readonly offset: number }
    ) => {
      const clauses = filterClauses(filters)
      if ("after" in from) clauses.push(keysetClause(sort, from.after))
      const offset = "offset" in from && from.offset > 0 ? sql`offset ${from.offset}` : sql``
      return sql<ListingRow>`
        select ${columns} from listings
        where ${sql.and(clauses)}
        ${orderBy(sort)}
        limit ${limit} ${offset}`
    },

    count: (filters: ListingFilters) =>
      sql<{ total: number }>`select count(*)::bigint as total from listings where ${sql.and(filterClauses(filters))}`.pipe(
        Effect.map((rows) => rows[0]?.total ?? 0)
      ),

    /** Listings that still show as for sale, for a set of domains (A-labels). */
    listedByDomain: (environment: Environment, domains: ReadonlyArray<string>) =>
      domains.length === 0
        ? Effect.succeed([] as ReadonlyArray<ListingRow>)
        : sql<ListingRow>`
          select ${columns} from listings
          where environment = ${environment} and domain in ${sql.in(domains)}
            and status in ${sql.in(LISTED_STATUSES)}`,

    byDomain: (environment: Environment, domain: string) =>
      sql<ListingRow>`select ${columns} from listings where environment = ${environment} and domain = ${domain}`.pipe(
        Effect.map((rows) => rows[0])
      ),

    /** Insert or update by (environment, domain); the id and listing time of an existing row are kept. */
    upsert: (rows: ReadonlyArray<NewListing>) =>
      rows.length === 0 ? Effect.succeed(0) : sql`
        insert into listings ${sql.insert(rows as Array<any>)}
        on conflict (environment, domain) do update set
          bin_price_cents = excluded.bin_price_cents,
          floor_price_cents = excluded.floor_price_cents,
          currency = excluded.currency,
          status = excluded.status,
          locked = excluded.locked,
          is_demo = excluded.is_demo,
          description = excluded.description,
          updated_at = now()`.pipe(Effect.as(rows.length)),

    /** Insert rows that are not there yet (seeding never overwrites an operator's row). */
    insertMissing: (rows: ReadonlyArray<NewListing>) =>
      rows.length === 0 ? Effect.succeed(0) : sql`
        insert into listings ${sql.insert(rows as Array<any>)}
        on conflict (environment, domain) do nothing`.pipe(Effect.as(rows.length)),

    removeDemo: sql`delete from listings where is_demo`.pipe(Effect.asVoid),

    hasDemo: sql<{ n: number }>`select count(*)::int as n from listings where is_demo`.pipe(Effect.map((r) => (r[0]?.n ?? 0) > 0))
  }
})

export class MarketRepo extends Context.Tag("app/MarketRepo")<MarketRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(MarketRepo, make)
}
