/**
 * SQL of the money tables other than the books (Books.ts writes `ledger_transactions` and
 * `ledger_entries`): settlement runs, statements and their lines, payouts, and the sales history
 * with totals over the whole filter (the orders' figures come through the `OrderFigures` port,
 * which the orders slice implements). Every partner read is keyed by partner AND environment.
 *
 * Rows are decoded by the schemas of RepoRows.ts; a database error is a defect here, once. The
 * callers keep their transactions (`transaction` runs one; the statements join it). The SQL is in
 * three files by who asks: RepoViews.ts (partner and operator reads), RepoSettlement.ts (the
 * settlement run), RepoPayouts.ts (payouts and receipts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { transactionOf } from "../../platform/db/SqlTransaction.js"
import { OrderFigures } from "./OrderFigures.js"
import { payoutQueries } from "./RepoPayouts.js"
import { settlementQueries } from "./RepoSettlement.js"
import { viewQueries } from "./RepoViews.js"

export {
  Group,
  LineRow,
  Owner,
  PayoutRow,
  PayoutSource,
  ReceiptRow,
  StatementRow,
  Totals,
  TransactionFilters,
  TransactionRow
} from "./RepoRows.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const orders = yield* OrderFigures
  return {
    /** Runs `effect` in one transaction; a failed BEGIN/COMMIT is a defect, `effect`'s own errors stay. */
    transaction: transactionOf(sql),
    ...viewQueries(sql, orders),
    ...settlementQueries(sql),
    ...payoutQueries(sql),
    /** Refunds of the group's orders recorded in (after, until] (the orders slice's figures). */
    refundsBetween: orders.refundsBetween,
    paymentModelsSettledAfter: orders.paymentModelsSettledAfter
  }
})

/** Needs the `OrderFigures` port, provided by src/partner/Layer.ts. */
export class MoneyRepo extends Effect.Service<MoneyRepo>()("app/MoneyRepo", { effect: make }) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = MoneyRepo.Default
}
