import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Money back for refunded or cancelled hosted-checkout orders: the checkout's reconciliation finds
 * paid sessions whose order was refunded or cancelled and refunds the payment at the provider
 * (idempotently, by the payment's reference), then marks the session `refunded`. The partial index
 * keeps that search to the few orders it concerns.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`create index if not exists partner_orders_checkout_refunds on partner_orders (checkout_session_id)
             where checkout_session_id is not null and status in ('REFUNDED', 'CANCELLED')`
  yield* sql`alter table checkout_sessions add column if not exists refunded_at timestamptz`
})
