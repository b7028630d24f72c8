/**
 * SQL of the availability engine: the shared answer cache and the reserved/blocked list. Rows are
 * decoded by their schema; a database failure is a defect here, once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import type { UpstreamOutcome } from "../domain/Availability.js"
import { Environment, listedAt, ListingRow } from "../market/Repo.js"
import { sqlArray } from "../platform/db/SqlArray.js"

/** An upstream answer as cached (`availability_cache.result`, jsonb). */
const CachedOutcome = Schema.Struct({
  state: Schema.Literal("available", "premium", "registered", "reserved", "unsupported", "unknown"),
  priceCents: Schema.NullOr(Schema.Number),
  whois: Schema.NullOr(Schema.Struct({
    registrar: Schema.NullOr(Schema.String),
    created: Schema.NullOr(Schema.String),
    expires: Schema.NullOr(Schema.String),
    status: Schema.Array(Schema.String)
  })),
  source: Schema.Literal(
    "registrar",
    "rdap",
    "whois",
    "dns",
    "registrar+rdap",
    "registrar+whois",
    "registrar+dns",
    "none"
  ),
  reason: Schema.NullOr(Schema.String),
  complete: Schema.Boolean
})
// The schema is the domain type, field for field: a change to either fails to compile here.
const _outcomeIsDomain: Schema.Schema<UpstreamOutcome> = CachedOutcome
void _outcomeIsDomain

export const CachedAnswer = Schema.Struct({
  domain: Schema.String,
  result: CachedOutcome,
  checked_at: Schema.DateFromSelf
})
export type CachedAnswer = typeof CachedAnswer.Type

/** A row of the local facts' statement: the queried name, its cached answer (or nulls), its listing's columns (or nulls). */
const FactRow = Schema.Struct({
  queried: Schema.String,
  cache_result: Schema.NullOr(CachedOutcome),
  cache_checked_at: Schema.NullOr(Schema.DateFromSelf),
  id: Schema.NullOr(Schema.String)
}, Schema.Record({ key: Schema.String, value: Schema.Unknown })) // the listing's columns, kept for ListingRow
const decodeListing = Schema.decodeUnknownSync(ListingRow)

/** A check's local facts, by domain. */
export interface StoredFacts {
  readonly listings: ReadonlyMap<string, ListingRow>
  readonly cache: ReadonlyMap<string, CachedAnswer>
}

const storedFacts = (rows: ReadonlyArray<typeof FactRow.Type>): StoredFacts => {
  const listings = new Map<string, ListingRow>()
  const cache = new Map<string, CachedAnswer>()
  for (const row of rows) {
    // The listing's columns are decoded by the market's own schema (the row carries them as `l.*`).
    if (row.id !== null) listings.set(row.queried, decodeListing(row))
    if (row.cache_result !== null && row.cache_checked_at !== null) {
      cache.set(row.queried, { domain: row.queried, result: row.cache_result, checked_at: row.cache_checked_at })
    }
  }
  return { listings, cache }
}

export const ReservedRow = Schema.Struct({
  pattern: Schema.String,
  kind: Schema.Literal("reserved", "blocked"),
  reason: Schema.String
})
export type ReservedRow = typeof ReservedRow.Type

const NewAnswer = Schema.Struct({
  domain: Schema.String,
  result: CachedOutcome,
  checkedAt: Schema.DateFromSelf,
  ttlMs: Schema.Number
})
const Pattern = Schema.Struct({ pattern: Schema.String })

/** Names no one can register (RFC 2606, RFC 6761 special-use names). Seeded once; operators add more. */
export const DEFAULT_RESERVED: ReadonlyArray<ReservedRow> = [
  { pattern: "*.test", kind: "reserved", reason: "special-use TLD for testing (RFC 6761)" },
  { pattern: "*.example", kind: "reserved", reason: "special-use TLD for documentation (RFC 6761)" },
  { pattern: "*.invalid", kind: "reserved", reason: "special-use TLD (RFC 6761)" },
  { pattern: "*.localhost", kind: "reserved", reason: "special-use TLD (RFC 6761)" },
  { pattern: "*.local", kind: "reserved", reason: "multicast DNS (RFC 6762)" },
  { pattern: "*.onion", kind: "reserved", reason: "Tor onion services (RFC 7686)" },
  { pattern: "*.alt", kind: "reserved", reason: "special-use TLD for non-DNS namespaces (RFC 9476)" },
  { pattern: "example.com", kind: "reserved", reason: "reserved for documentation (RFC 2606)" },
  { pattern: "example.net", kind: "reserved", reason: "reserved for documentation (RFC 2606)" },
  { pattern: "example.org", kind: "reserved", reason: "reserved for documentation (RFC 2606)" }
]

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // One statement for all names of a check: each name's listing (the market's fragment) and its
  // fresh cached answer (live only: the sandbox never asks upstream), one row per name (more if
  // the market has several listings of it).
  const facts = SqlSchema.findAll({
    Request: Schema.Struct({ environment: Environment, domains: Schema.Array(Schema.String) }),
    Result: FactRow,
    execute: ({ domains, environment }) =>
      sql`
        select q.domain as queried, c.result as cache_result, c.checked_at as cache_checked_at, l.*
        from unnest(${sqlArray(domains)}::text[]) as q(domain)
        left join lateral (${listedAt(sql, environment, sql`q.domain`)}) l on true
        left join availability_cache c
          on ${environment === "live"}::boolean and c.domain = q.domain and c.expires_at > now()`
  })
  const store = SqlSchema.void({
    Request: NewAnswer,
    execute: ({ checkedAt, domain, result, ttlMs }) =>
      sql`
        insert into availability_cache (domain, state, result, source, checked_at, expires_at)
        values (${domain}, ${result.state}, ${JSON.stringify(result)}, ${result.source}, ${checkedAt},
                ${new Date(checkedAt.getTime() + ttlMs)})
        on conflict (domain) do update set
          state = excluded.state, result = excluded.result, source = excluded.source,
          checked_at = excluded.checked_at, expires_at = excluded.expires_at`
  })
  const purgeExpired = SqlSchema.void({
    Request: Schema.Void,
    execute: () => sql`delete from availability_cache where expires_at < now()`
  })
  const reserved = SqlSchema.findAll({
    Request: Schema.Void,
    Result: ReservedRow,
    execute: () => sql`select pattern, kind, reason from reserved_names`
  })
  const seedReserved = SqlSchema.void({
    Request: Schema.Array(ReservedRow),
    execute: (rows) => sql`insert into reserved_names ${sql.insert(rows)} on conflict (pattern) do nothing`
  })
  const upsertReserved = SqlSchema.void({
    Request: ReservedRow,
    execute: (row) =>
      sql`insert into reserved_names ${sql.insert(row)}
          on conflict (pattern) do update set kind = excluded.kind, reason = excluded.reason`
  })
  const removeReserved = SqlSchema.findAll({
    Request: Schema.String,
    Result: Pattern,
    execute: (pattern) => sql`delete from reserved_names where pattern = ${pattern} returning pattern`
  })

  return {
    /** What the database knows of the names (A-labels) now: their listings and fresh cached answers. */
    localFacts: (environment: Environment, domains: ReadonlyArray<string>): Effect.Effect<StoredFacts> =>
      domains.length === 0
        ? Effect.succeed({ listings: new Map(), cache: new Map() })
        : Effect.map(Effect.orDie(facts({ environment, domains })), storedFacts),
    store: (domain: string, result: UpstreamOutcome, checkedAt: Date, ttlMs: number) =>
      Effect.orDie(store({ domain, result, checkedAt, ttlMs })),
    purgeExpired: Effect.orDie(purgeExpired(undefined)),
    reserved: Effect.orDie(reserved(undefined)),
    seedReserved: (rows: ReadonlyArray<ReservedRow>) =>
      rows.length === 0 ? Effect.void : Effect.orDie(seedReserved(rows)),
    upsertReserved: (row: ReservedRow) => Effect.orDie(upsertReserved(row)),
    /** Whether the pattern was on the list. */
    removeReserved: (pattern: string) => Effect.orDie(Effect.map(removeReserved(pattern), (rows) => rows.length > 0))
  }
})

export class AvailabilityRepo extends Effect.Service<AvailabilityRepo>()("app/AvailabilityRepo", { effect: make }) {}
