import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 30 (reliability): a circuit breaker per webhook endpoint. `consecutive_failures` counts
 * attempts in a row that got no answer (timeouts, refused or reset connections); at the threshold
 * the endpoint is "open" until `circuit_open_until`, then probed one delivery at a time in a pool
 * of its own, so receivers that hang never hold the slots healthy partners are delivered with.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table partner_webhooks add column if not exists consecutive_failures integer not null default 0`
  yield* sql`alter table partner_webhooks add column if not exists circuit_open_until timestamptz`
})
