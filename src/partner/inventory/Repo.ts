/** SQL over the shared `listings` table (read-only here) for the partner inventory. */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { PartnerEnvironment } from "../Auth.js"

export interface ListingRow {
  readonly id: string
  readonly domain: string
  readonly domain_unicode: string
  readonly tld: string
  readonly label: string
  readonly bin_price_cents: number | null
  readonly floor_price_cents: number | null
  readonly currency: string
  readonly status: "active" | "pending" | "sold" | "withdrawn"
  readonly locked: boolean
  readonly description: string | null
  readonly listed_at: Date
}

export interface KeywordCandidate extends ListingRow {
  readonly sim: number
}

const COLUMNS = "id, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents, currency, status, locked, description, listed_at"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cols = sql.unsafe(COLUMNS)

  return {
    byDomain: (env: PartnerEnvironment, domain: string) =>
      sql<ListingRow>`select ${cols} from listings where environment = ${env} and domain = ${domain}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),

    /** One listing and whether another partner's live quote reserves it, in one statement. */
    byDomainWithReservation: (env: PartnerEnvironment, domain: string, partnerId: string) =>
      sql<ListingRow & { readonly reserved_by_others: boolean }>`
        select ${cols}, exists (
          select 1 from partner_quotes q
          where q.environment = ${env} and q.domain = ${domain} and q.partner_id <> ${partnerId}
            and q.expires_at > now() and q.used_by_order is null) as reserved_by_others
        from listings where environment = ${env} and domain = ${domain}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),

    /** Keyword candidates: trigram-similar labels, or labels containing the query or one of its words. */
    keywordCandidates: (env: PartnerEnvironment, compact: string, words: ReadonlyArray<string>, limit: number) => {
      const patterns = [compact, ...words.filter((w) => w.length >= 3)].map((w) => `%${w.replace(/[%_\\]/g, "")}%`)
      return sql<KeywordCandidate>`
        select ${cols}, similarity(label, ${compact}) as sim
        from listings
        where environment = ${env} and status in ('active', 'pending')
          and (label % ${compact} or label like any(${patterns as any}::text[]))
        order by sim desc, id
        limit ${limit}`
    },

    /** Semantic candidates: labels containing one of the expanded concept terms. */
    conceptCandidates: (env: PartnerEnvironment, terms: ReadonlyArray<string>, limit: number) =>
      terms.length === 0
        ? Effect.succeed([] as ReadonlyArray<ListingRow>)
        : sql<ListingRow>`
        select ${cols} from listings
        where environment = ${env} and status in ('active', 'pending')
          and label like any(${terms.map((t) => `%${t}%`) as any}::text[])
        limit ${limit}`,

    /** Domains held by a live quote or an open order of another partner. */
    reservedByOthers: (env: PartnerEnvironment, domains: ReadonlyArray<string>, partnerId: string) =>
      domains.length === 0
        ? Effect.succeed(new Set<string>())
        : sql<{ domain: string }>`
        select domain from partner_quotes
        where environment = ${env} and domain in ${sql.in([...domains])} and partner_id <> ${partnerId}
          and expires_at > now() and used_by_order is null`.pipe(Effect.map((rows) => new Set(rows.map((r) => r.domain))))
  }
})

export class InventoryRepo extends Context.Tag("app/PartnerInventoryRepo")<InventoryRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(InventoryRepo, make)
}
