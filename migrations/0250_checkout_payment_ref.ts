import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Provider events name the payment, not our session (Stripe: the Checkout Session id we stored as
 * `payment_ref`); the webhook finds the session by it. Without this index every delivery scans
 * the sessions table.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`create index if not exists checkout_sessions_payment_ref on checkout_sessions (payment_ref)
             where payment_ref is not null`
})
