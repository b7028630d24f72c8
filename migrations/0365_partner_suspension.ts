import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A partner an operator suspended (`partner suspend`, /ops/partners): while `suspended_at` is set,
 * the signed API admits none of its keys (the admission statement reads it, partner/Repo.ts
 * `admitNonces`), and `partner resume` clears it. Its orders, ledger and console stay as they are.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table partners add column if not exists suspended_at timestamptz`
})
