import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 29 (money integrity): a session refused after its payment (the domain sold to someone
 * else) is `refunded` at once, but its provider refund is now recorded as sent (`refunded_at`)
 * only when the provider confirmed it, and retried until then. Sessions refused before this
 * change had their refund sent once, unrecorded: they are marked sent.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`update checkout_sessions set refunded_at = updated_at where status = 'refunded' and refunded_at is null`
  yield* sql`create index if not exists checkout_sessions_refunds_to_send on checkout_sessions (id)
             where status = 'refunded' and refunded_at is null`
})
