/**
 * Read-only queries over `listings` that other slices need, owned by market (the table's owner)
 * and provided by src/market/Layer.ts: the partner inventory's lookups and search candidates
 * (src/partner/inventory/Inventory.ts) and the appraise tool's comparables (src/tools/Tools.ts).
 * Rows are decoded by the schemas below; a database error is a defect here (`Effect.orDie`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { groupCommit } from "../platform/db/GroupCommit.js"
import { sqlArray } from "../platform/db/SqlArray.js"
import { Environment } from "./Repo.js"

export const InventoryListing = Schema.Struct({
  id: Schema.String,
  domain: Schema.String,
  domain_unicode: Schema.String,
  tld: Schema.String,
  label: Schema.String,
  bin_price_cents: Schema.NullOr(Schema.Number),
  floor_price_cents: Schema.NullOr(Schema.Number),
  currency: Schema.String,
  status: Schema.Literal("active", "pending", "sold", "withdrawn"),
  locked: Schema.Boolean,
  description: Schema.NullOr(Schema.String),
  listed_at: Schema.DateFromSelf,
  /** The listing's hold (a partner's quote): src/domain/Reservation.ts. */
  held_by: Schema.NullOr(Schema.String),
  held_until: Schema.NullOr(Schema.DateFromSelf)
})
export type InventoryListing = typeof InventoryListing.Type

export const KeywordCandidate = Schema.Struct({ ...InventoryListing.fields, sim: Schema.Number })
export type KeywordCandidate = typeof KeywordCandidate.Type

const COLUMNS =
  "id, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents, currency, status, locked, description, listed_at, held_by, held_until"

const Wanted = Schema.Struct({ env: Environment, domain: Schema.String })
const Comparable = Schema.Struct({ domain: Schema.String, bin_price_cents: Schema.Number })
const ComparablesOf = Schema.Struct({ tld: Schema.String, labelLength: Schema.Number, exclude: Schema.String })
const FoundListing = Schema.Struct({ i: Schema.Number, ...InventoryListing.fields })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cols = sql.unsafe(COLUMNS)

  /**
   * Listings by domain with their reservation, for every request waiting: concurrent signed
   * availability/detail/pricing reads share one statement (group commit) instead of one round
   * trip each — bench/partner.ts, signed availability ÷ pricing. `i` is the caller's position.
   */
  const byDomainsWithReservation = SqlSchema.findAll({
    Request: Schema.Array(Wanted),
    Result: FoundListing,
    execute: (wanted) =>
      sql`
        select w.i, ${sql.unsafe(COLUMNS.split(", ").map((c) => `l.${c}`).join(", "))}
        from jsonb_to_recordset(${JSON.stringify(wanted.map((w, i) => ({ i, env: w.env, domain: w.domain })))}::jsonb)
               as w(i int, env text, domain text)
        join listings l on l.environment = w.env and l.domain = w.domain`
  })
  const byDomainWithReservation = groupCommit((wanted: ReadonlyArray<typeof Wanted.Type>) =>
    Effect.map(byDomainsWithReservation(wanted), (rows) => {
      const found = new Array<Option.Option<InventoryListing>>(wanted.length).fill(Option.none())
      for (const { i, ...row } of rows) found[i] = Option.some(row)
      return found
    }).pipe(Effect.orDie)
  )

  const keywordCandidates = SqlSchema.findAll({
    Request: Schema.Struct({
      env: Environment,
      compact: Schema.String,
      patterns: Schema.Array(Schema.String),
      limit: Schema.Number
    }),
    Result: KeywordCandidate,
    execute: (r) =>
      sql`
        select ${cols}, similarity(label, ${r.compact}) as sim
        from listings
        where environment = ${r.env} and status = 'active'
          and (label % ${r.compact} or label like any(${sqlArray(r.patterns)}::text[]))
        order by sim desc, id
        limit ${r.limit}`
  })

  const conceptCandidates = SqlSchema.findAll({
    Request: Schema.Struct({ env: Environment, patterns: Schema.Array(Schema.String), limit: Schema.Number }),
    Result: InventoryListing,
    execute: (r) =>
      sql`
        select ${cols} from listings
        where environment = ${r.env} and status = 'active'
          and label like any(${sqlArray(r.patterns)}::text[])
        limit ${r.limit}`
  })

  const comparables = SqlSchema.findAll({
    Request: ComparablesOf,
    Result: Comparable,
    execute: ({ exclude, labelLength, tld }) =>
      sql`
        select domain, bin_price_cents from listings
        where environment = 'live' and status = 'active' and tld = ${tld} and domain <> ${exclude}
          and bin_price_cents is not null and length(label) between ${labelLength - 2} and ${labelLength + 2}
        order by abs(length(label) - ${labelLength}), listed_at desc
        limit 10`
  })

  return {
    /** One listing with its hold (a partner's quote), in one statement shared with concurrent readers. */
    byDomainWithReservation: (env: Environment, domain: string) => byDomainWithReservation({ env, domain }),

    /** Keyword candidates (listings offered now: a sold name is not): trigram-similar labels, or labels containing the query or one of its words. */
    keywordCandidates: (env: Environment, compact: string, words: ReadonlyArray<string>, limit: number) => {
      const patterns = [compact, ...words.filter((w) => w.length >= 3)].map((w) => `%${w.replace(/[%_\\]/g, "")}%`)
      return keywordCandidates({ env, compact, patterns, limit }).pipe(Effect.orDie)
    },

    /** Semantic candidates: labels containing one of the expanded concept terms. */
    conceptCandidates: (env: Environment, terms: ReadonlyArray<string>, limit: number) =>
      terms.length === 0
        ? Effect.succeed<ReadonlyArray<InventoryListing>>([])
        : conceptCandidates({ env, patterns: terms.map((t) => `%${t}%`), limit }).pipe(Effect.orDie),

    /** Active live listings with a buy-now price, same TLD, label length within ±2 (at most 10), in USD. */
    comparables: (tld: string, labelLength: number, exclude: string) =>
      Effect.orDie(
        Effect.map(comparables({ tld, labelLength, exclude }), (rows) =>
          rows.map((r) => ({ domain: r.domain, bin_price: r.bin_price_cents / 100 })))
      )
  }
})

export class ListingReads extends Effect.Service<ListingReads>()("app/ListingReads", { effect: make }) {
  /** Kept for the existing wiring (src/market/Layer.ts and test/partner/inventory). */
  static readonly Live = ListingReads.Default
}
