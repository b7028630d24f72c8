import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 29, item 12: a brokerage order shows the deal price apart from the service's fee (its
 * `sale_price_cents`). The won case's deal price is kept on its order row, so the orders slice
 * answers from its own table; orders of cases won before this migration get it from their case.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table partner_orders add column if not exists deal_price_cents bigint`
  yield* sql`
    update partner_orders o set deal_price_cents = c.deal_price_cents
    from brokerage_cases c
    where c.order_id = o.id and o.payment_model = 'brokerage' and o.deal_price_cents is null`
})
