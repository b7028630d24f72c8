import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Fixed-window counters shared by every replica. UNLOGGED: losing counters in a crash only
 * resets windows early, and skipping the WAL makes the per-request upsert cheap.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create unlogged table if not exists rate_limit_counters (
      bucket text not null,
      window_start bigint not null,
      count integer not null,
      expires_at timestamptz not null,
      primary key (bucket, window_start)
    )`
  yield* sql`create index if not exists rate_limit_counters_expires on rate_limit_counters (expires_at)`
})
