/**
 * What the ledger reads of the orders, as a port the ledger owns (beside `SettlementOrders`, the
 * settlement run's moves): refunds in a statement's window, the payment models a payout covers,
 * and the sales history with its totals (GET /transactions, exports). Implemented by the orders
 * slice (src/partner/orders/OrderFigures.ts, SQL in its RepoFigures.ts) and provided by
 * src/partner/Layer.ts, so the ledger names no orders table and imports no orders code. Every
 * call runs in the caller's transaction, when there is one.
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { Group, Owner, Totals, TransactionFilters, TransactionRow } from "./RepoRows.js"

/** A sale of the history: a transaction row before the ledger gives it its posting's id. */
export type OrderSale = Omit<TransactionRow, "id">

export class OrderFigures extends Context.Tag("app/OrderFigures")<OrderFigures, {
  /** Refunds of the group's orders recorded in (after, until]. */
  readonly refundsBetween: (group: Group, after: Date | null, until: Date) => Effect.Effect<number>
  /** The service-collected payment models of the group's orders settled after `after` (every settled one when null). */
  readonly paymentModelsSettledAfter: (
    group: Group,
    after: Date | null
  ) => Effect.Effect<ReadonlyArray<TransactionRow["payment_model"]>>
  /** The partner's sales matching the filters, newest first (by id, below `beforeId` when given). */
  readonly sales: (
    owner: Owner,
    filters: TransactionFilters,
    beforeId: string | null,
    limit: number
  ) => Effect.Effect<ReadonlyArray<OrderSale>>
  /** Count, gross and commission over every sale matching the filters. */
  readonly salesTotals: (owner: Owner, filters: TransactionFilters) => Effect.Effect<Totals>
}>() {}
