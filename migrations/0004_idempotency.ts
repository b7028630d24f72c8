import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Idempotency keys: the first request with a key claims it (in_flight), its response is stored
 * (done) and replayed to later requests with the same key and the same request fingerprint.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table idempotency_keys (
      scope text not null,
      key text not null,
      fingerprint text not null,
      state text not null check (state in ('in_flight', 'done')),
      response_status integer,
      response_body jsonb,
      response_headers jsonb,
      locked_until timestamptz not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      primary key (scope, key)
    )`
  yield* sql`create index idempotency_keys_expires on idempotency_keys (expires_at)`
})
