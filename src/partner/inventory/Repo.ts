/**
 * SQL over the shared `listings` table (read-only here) for the partner inventory. Rows are
 * decoded by the schemas below; a database error is a defect here (`Effect.orDie`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { groupCommit } from "../../platform/GroupCommit.js"
import type { PartnerEnvironment } from "../Auth.js"

const Environment = Schema.Literal("live", "sandbox")

export const ListingRow = Schema.Struct({
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
  listed_at: Schema.DateFromSelf
})
export type ListingRow = typeof ListingRow.Type

const ReservedListing = Schema.Struct({ ...ListingRow.fields, reserved_by_others: Schema.Boolean })

export const KeywordCandidate = Schema.Struct({ ...ListingRow.fields, sim: Schema.Number })
export type KeywordCandidate = typeof KeywordCandidate.Type

const COLUMNS =
  "id, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents, currency, status, locked, description, listed_at"

const Wanted = Schema.Struct({ env: Environment, domain: Schema.String, partnerId: Schema.String })
const FoundListing = Schema.Struct({ i: Schema.Number, ...ReservedListing.fields })

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
        select w.i, ${sql.unsafe(COLUMNS.split(", ").map((c) => `l.${c}`).join(", "))}, exists (
          select 1 from partner_quotes q
          where q.environment = w.env and q.domain = w.domain and q.partner_id <> w.partner_id
            and q.expires_at > now() and q.used_by_order is null) as reserved_by_others
        from jsonb_to_recordset(${
        JSON.stringify(wanted.map((w, i) => ({ i, env: w.env, domain: w.domain, partner_id: w.partnerId })))
      }::jsonb)
               as w(i int, env text, domain text, partner_id text)
        join listings l on l.environment = w.env and l.domain = w.domain`
  })
  const byDomainWithReservation = groupCommit((wanted: ReadonlyArray<typeof Wanted.Type>) =>
    Effect.map(byDomainsWithReservation(wanted), (rows) => {
      const found = new Array<Option.Option<typeof ReservedListing.Type>>(wanted.length).fill(Option.none())
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
        where environment = ${r.env} and status in ('active', 'pending')
          and (label % ${r.compact} or label like any(${r.patterns as any}::text[]))
        order by sim desc, id
        limit ${r.limit}`
  })

  const conceptCandidates = SqlSchema.findAll({
    Request: Schema.Struct({ env: Environment, patterns: Schema.Array(Schema.String), limit: Schema.Number }),
    Result: ListingRow,
    execute: (r) =>
      sql`
        select ${cols} from listings
        where environment = ${r.env} and status in ('active', 'pending')
          and label like any(${r.patterns as any}::text[])
        limit ${r.limit}`
  })

  const reservedByOthers = SqlSchema.findAll({
    Request: Schema.Struct({ env: Environment, domains: Schema.Array(Schema.String), partnerId: Schema.String }),
    Result: Schema.Struct({ domain: Schema.String }),
    execute: (r) =>
      sql`
        select domain from partner_quotes
        where environment = ${r.env} and domain in ${sql.in(r.domains)} and partner_id <> ${r.partnerId}
          and expires_at > now() and used_by_order is null`
  })

  return {
    /** One listing and whether another partner's live quote reserves it, in one statement. */
    byDomainWithReservation: (env: PartnerEnvironment, domain: string, partnerId: string) =>
      byDomainWithReservation({ env, domain, partnerId }),

    /** Keyword candidates: trigram-similar labels, or labels containing the query or one of its words. */
    keywordCandidates: (env: PartnerEnvironment, compact: string, words: ReadonlyArray<string>, limit: number) => {
      const patterns = [compact, ...words.filter((w) => w.length >= 3)].map((w) => `%${w.replace(/[%_\\]/g, "")}%`)
      return keywordCandidates({ env, compact, patterns, limit }).pipe(Effect.orDie)
    },

    /** Semantic candidates: labels containing one of the expanded concept terms. */
    conceptCandidates: (env: PartnerEnvironment, terms: ReadonlyArray<string>, limit: number) =>
      terms.length === 0
        ? Effect.succeed<ReadonlyArray<ListingRow>>([])
        : conceptCandidates({ env, patterns: terms.map((t) => `%${t}%`), limit }).pipe(Effect.orDie),

    /** Domains held by a live quote or an open order of another partner. */
    reservedByOthers: (env: PartnerEnvironment, domains: ReadonlyArray<string>, partnerId: string) =>
      domains.length === 0
        ? Effect.succeed(new Set<string>())
        : reservedByOthers({ env, domains, partnerId }).pipe(
          Effect.map((rows) => new Set(rows.map((r) => r.domain))),
          Effect.orDie
        )
  }
})

export class InventoryRepo
  extends Context.Tag("app/PartnerInventoryRepo")<InventoryRepo, Effect.Effect.Success<typeof make>>()
{
  static readonly Live = Layer.effect(InventoryRepo, make)
}
