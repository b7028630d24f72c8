/**
 * SQL for partner orders, their quotes, timeline and refunds (the listing they hold is market's:
 * src/market). Rows are decoded by the schemas of RepoRows.ts; a database error is a defect here
 * (`Effect.orDie`), once, so the service sees only data. The SQL is in RepoOrder.ts (one order),
 * RepoBatches.ts (lists and settlement batches), RepoFigures.ts (what the ledger reads) and
 * RepoReferrals.ts (the referral reports' sales).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { batchQueries } from "./RepoBatches.js"
import { figureQueries } from "./RepoFigures.js"
import { orderQueries } from "./RepoOrder.js"
import { referralQueries } from "./RepoReferrals.js"

export { Buyer, ListingForOrder, type NewOrder, type OrderFilters, OrderRow, TimelineRow } from "./RepoRows.js"

const make = Effect.map(SqlClient.SqlClient, (sql) => ({
  ...orderQueries(sql),
  ...batchQueries(sql),
  ...figureQueries(sql),
  ...referralQueries(sql)
}))

export class OrderRepo extends Effect.Service<OrderRepo>()("app/PartnerOrderRepo", { effect: make }) {
  /** Kept for the settlement orders', order figures' and brokerage's layers, which provide it themselves as before. */
  static readonly Live = OrderRepo.Default
}
