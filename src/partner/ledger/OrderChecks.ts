/**
 * What `ledger verify` (Reconcile.ts) checks of the orders, as a port the ledger owns (beside
 * `OrderFigures`, the ledger's reads of the orders): the orders as a from-item the ledger's own
 * checks place (an order against its postings and statement line, the partners that have orders,
 * the count), the maintained sales totals that drift from the orders they sum, and what a
 * partner's orders imply for its balances. Implemented by the orders slice
 * (src/partner/orders/OrderChecks.ts, which owns `partner_orders` and `partner_order_totals`) and
 * provided by src/partner/Layer.ts, so the ledger names no orders table and imports no orders
 * code. Each check is the one statement it was when Reconcile wrote it; a database error is a
 * defect.
 */
import type { Fragment } from "@effect/sql/Statement"
import type { Effect } from "effect"
import { Context } from "effect"

/** A partner's books in one environment and currency. */
export interface BooksOwner {
  readonly partner_id: string
  readonly environment: "live" | "sandbox"
  readonly currency: string
}

/** A day of the maintained sales totals whose count/gmv/commission differs from its orders' (null: no row). */
export interface TotalsDrift {
  readonly subject: string
  readonly stored: string | null
  readonly actual: string | null
}

/** What an owner's orders imply for its balances, in cents. */
export interface ImpliedByOrders {
  /** Owed by the partner for partner-collected orders still open. */
  readonly receivable: number
  /** Owed by the partner for partner-collected orders settled. */
  readonly receivable_settled: number
  /** Commission of service-collected orders still open. */
  readonly accrued: number
  /** Commission of service-collected orders settled. */
  readonly earned: number
  /** Brokerage fees of brokerage orders not refunded nor cancelled. */
  readonly brokerage_fees: number
}

export class OrderChecks extends Context.Tag("app/OrderChecks")<OrderChecks, {
  /**
   * Every order as a from-item (place it with an alias: ``from ${orders} o``), with the columns
   * the ledger checks: `id`, `partner_id`, `environment`, `currency`, `status`,
   * `sale_price_cents`, `commission_cents`, `commission_bps`.
   */
  readonly orders: Fragment
  /** The days (partner/environment/day/status/payment model) whose maintained totals differ from the orders', at most 50. */
  readonly totalsDrift: Effect.Effect<ReadonlyArray<TotalsDrift>>
  /** What the owner's orders imply for its balances. */
  readonly impliedBy: (owner: BooksOwner) => Effect.Effect<ImpliedByOrders>
}>() {}
