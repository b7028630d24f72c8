/**
 * The orders slice's side of the ledger's `OrderFigures` port (src/partner/ledger/OrderFigures.ts):
 * what the ledger reads of the orders, from this slice's repository (RepoFigures.ts). Needs only
 * the database; src/partner/Layer.ts provides it to the ledger.
 */
import { Effect, Layer } from "effect"
import { OrderFigures } from "../ledger/OrderFigures.js"
import { OrderRepo } from "./Repo.js"

export const OrderFiguresLive = Layer.effect(
  OrderFigures,
  Effect.map(OrderRepo, (repo) =>
    OrderFigures.of({
      refundsBetween: repo.refundsBetween,
      paymentModelsSettledAfter: repo.paymentModelsSettledAfter,
      sales: repo.sales,
      salesTotals: repo.salesTotals
    }))
).pipe(Layer.provide(OrderRepo.Live))
