import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 32 (fulfilment): one delivery per order (`order_deliveries`, owned by src/fulfilment), which
 * is also its queue item on the durable-queue engine (claimed with `FOR UPDATE SKIP LOCKED` and a
 * lease, like the webhook deliveries): a step of the delivery runs when `ready` (the order is
 * payable and not held) and `run_after` has come. `started_at` marks the first claim; the partner's
 * delivery choice is refused after it. The auth code is stored sealed (AES-GCM, SERVICE_SECRET).
 *
 * `sandbox_registrar_transfers` is the sandbox registrar's memory (every push and hand-over it was
 * asked for, one row per call, so a second push would be visible), kept in the database so a
 * restarted process sees what its predecessor did.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table if not exists order_deliveries (
      order_id text primary key,
      partner_id text not null,
      environment text not null,
      domain text not null,
      state text not null default 'pending',
      method text,
      target text,
      ready boolean not null default false,
      attempts integer not null default 0,
      last_error text,
      registrar_state text,
      auth_code_sealed text,
      code_nonce text,
      code_expires_at timestamptz,
      code_retrieved_at timestamptz,
      run_after timestamptz not null default now(),
      locked_by text,
      locked_until timestamptz,
      started_at timestamptz,
      requested_at timestamptz,
      finished_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`
  yield* sql`create index if not exists order_deliveries_due on order_deliveries (run_after)
             where ready and state not in ('completed', 'failed')`
  yield* sql`create index if not exists order_deliveries_state on order_deliveries (state, updated_at)`
  yield* sql`
    create table if not exists sandbox_registrar_transfers (
      seq bigserial primary key,
      domain text not null,
      kind text not null,
      target text,
      at timestamptz not null default now()
    )`
  yield* sql`create index if not exists sandbox_registrar_transfers_domain on sandbox_registrar_transfers (domain, seq)`
})
