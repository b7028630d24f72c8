/**
 * SQL fragments over `partner_orders` (the orders slice owns the table) for statements of the
 * checkout that read an order beside its session in one statement: the owner writes the SQL,
 * the caller places it, as orders place market's `holdFragment`. The checkout's reconciliation
 * finds paid sessions whose order was given back (src/checkout/Repo.ts `paidButReversed`), and
 * `ledger verify` reads captured payments with whether their order was reversed (`captured`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"

/** The checkout sessions (ids) of orders refunded or cancelled: a set for `… in (…)`. */
export const reversedOrderSessions = (sql: SqlClient.SqlClient): Fragment =>
  sql`select checkout_session_id from partner_orders
      where checkout_session_id is not null and status in ('REFUNDED', 'CANCELLED')`

/** Whether the order whose id is `orderId` (a column of the caller's row) was refunded or cancelled; null when there is none. */
export const orderReversed = (sql: SqlClient.SqlClient, orderId: Fragment): Fragment =>
  sql`(select status in ('REFUNDED', 'CANCELLED') from partner_orders where id = ${orderId})`
