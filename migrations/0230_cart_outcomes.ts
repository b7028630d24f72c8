import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Cart outcomes (docs/portfolio.md#carts): a cart ends `done` once every item ran; an item whose
 * registrar call failed after payment is `refunded` with its `rf_…` id (its ledger reversal is
 * posted in the same transaction); a renew/restore request is a bulk operation too, whose status
 * names its cart (`bulk_ops.cart_id`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table carts drop constraint if exists carts_status_check`
  yield* sql`alter table carts add constraint carts_status_check check (status in ('open', 'paid', 'done'))`
  yield* sql`alter table carts add column if not exists finished_at timestamptz`
  yield* sql`alter table cart_items drop constraint if exists cart_items_status_check`
  yield* sql`alter table cart_items add constraint cart_items_status_check
             check (status in ('pending', 'running', 'succeeded', 'failed', 'refunded'))`
  yield* sql`alter table cart_items add column if not exists refund_id text`
  yield* sql`alter table cart_items add column if not exists refunded_at timestamptz`
  yield* sql`alter table bulk_ops add column if not exists cart_id text`
})
