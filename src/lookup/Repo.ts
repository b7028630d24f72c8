/** SQL of the lookup capability: stored lookups, and a read-only look at quota counters. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { LookupRecord } from "./Record.js"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    insert: (row: { id: string; domain: string; result: LookupRecord; createdAt: Date }) =>
      sql`insert into lookups (id, domain, result, raw_source, created_at)
          values (${row.id}, ${row.domain}, ${JSON.stringify(row.result)}, ${row.result.raw_source}, ${row.createdAt})`,

    /** Requests counted in a rate-limit window so far (0 when none), without counting one. */
    quotaUsed: (bucket: string, windowStartSeconds: number) =>
      sql<{ count: number }>`select count from rate_limit_counters
        where bucket = ${bucket} and window_start = ${windowStartSeconds}`.pipe(Effect.map((rows) => rows[0]?.count ?? 0))
  }
})

export type LookupRepo = Effect.Effect.Success<typeof make>
