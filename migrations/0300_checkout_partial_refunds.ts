import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 29 (money integrity): part of a payment given back (a cart item the registrar refused after
 * payment), one row per provider refund, keyed like its provider Idempotency-Key so a retried
 * refund is recorded once. The ledger's reconciliation reads the refunded sum per session.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table if not exists checkout_partial_refunds (
      session_id text not null references checkout_sessions (id),
      refund_key text not null,
      amount_cents bigint not null check (amount_cents > 0),
      created_at timestamptz not null default now(),
      primary key (session_id, refund_key)
    )`
})
