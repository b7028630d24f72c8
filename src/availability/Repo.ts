/** SQL of the availability engine: the shared answer cache and the reserved/blocked list. */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import type { UpstreamOutcome } from "../domain/Availability.js"

export interface CachedAnswer {
  readonly domain: string
  readonly result: UpstreamOutcome
  readonly checked_at: Date
}

export interface ReservedRow {
  readonly pattern: string
  readonly kind: "reserved" | "blocked"
  readonly reason: string
}

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
  return {
    /** Answers still fresh, by domain. */
    fresh: (domains: ReadonlyArray<string>) =>
      domains.length === 0
        ? Effect.succeed([] as ReadonlyArray<CachedAnswer>)
        : sql<CachedAnswer>`
          select domain, result, checked_at from availability_cache
          where domain in ${sql.in(domains)} and expires_at > now()`,

    store: (domain: string, result: UpstreamOutcome, checkedAt: Date, ttlMs: number) =>
      sql`
        insert into availability_cache (domain, state, result, source, checked_at, expires_at)
        values (${domain}, ${result.state}, ${JSON.stringify(result)}, ${result.source}, ${checkedAt},
                ${new Date(checkedAt.getTime() + ttlMs)})
        on conflict (domain) do update set
          state = excluded.state, result = excluded.result, source = excluded.source,
          checked_at = excluded.checked_at, expires_at = excluded.expires_at`.pipe(Effect.asVoid),

    purgeExpired: sql`delete from availability_cache where expires_at < now()`.pipe(Effect.asVoid),

    reserved: sql<ReservedRow>`select pattern, kind, reason from reserved_names`,

    seedReserved: (rows: ReadonlyArray<ReservedRow>) =>
      rows.length === 0
        ? Effect.void
        : sql`insert into reserved_names ${sql.insert(rows as Array<any>)} on conflict (pattern) do nothing`.pipe(Effect.asVoid),

    upsertReserved: (row: ReservedRow) =>
      sql`insert into reserved_names ${sql.insert(row as any)}
          on conflict (pattern) do update set kind = excluded.kind, reason = excluded.reason`.pipe(Effect.asVoid),

    removeReserved: (pattern: string) =>
      sql<{ pattern: string }>`delete from reserved_names where pattern = ${pattern} returning pattern`.pipe(
        Effect.map((rows) => rows.length > 0)
      )
  }
})

export class AvailabilityRepo extends Context.Tag("app/AvailabilityRepo")<AvailabilityRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(AvailabilityRepo, make)
}
