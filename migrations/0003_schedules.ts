import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Last run of each singleton schedule (TLD sync, settlement…), shared by all replicas. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table schedules (
      name text primary key,
      last_run_at timestamptz,
      last_status text,
      last_error text,
      last_duration_ms integer
    )`
})
