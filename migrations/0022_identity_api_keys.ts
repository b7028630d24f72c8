import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * API key pairs for the keyed developer endpoints (/api/v1). `key` is public (sent as
 * x-api-key); the secret (x-api-secret) is a 256-bit random value stored as its SHA-256 only.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table api_keys (
      id text primary key,
      key text not null unique,
      name text not null,
      secret_hash text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`
})
