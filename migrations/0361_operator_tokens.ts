import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Named operator tokens (src/admin/): one bearer per person for /api/admin, so the audit log names
 * who acted. Only the SHA-256 of the secret is stored; a revoked token keeps its row (the audit
 * log refers to its name and id).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table if not exists operator_tokens (
      id text primary key,
      name text not null,
      secret_hash text not null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    )`
})
