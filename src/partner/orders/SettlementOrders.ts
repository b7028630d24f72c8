/**
 * The orders slice's side of settlement (the port src/partner/ledger/SettlementOrders.ts): claims
 * due orders as SETTLED, and records the move on their timelines and as `order.settled` events.
 */
import { Effect, Layer } from "effect"
import { Outbox } from "../events/Outbox.js"
import { SettlementOrders } from "../ledger/SettlementOrders.js"
import { OrderRepo } from "./Repo.js"
import { eventOrder } from "./View.js"

const make = Effect.gen(function*() {
  const repo = yield* OrderRepo
  const outbox = yield* Outbox

  return SettlementOrders.of({
    dueGroups: repo.dueGroups,
    claimDue: (s) =>
      repo.settleDue({
        partnerId: s.partner_id,
        environment: s.environment,
        currency: s.currency,
        cutoff: s.cutoff,
        onlyId: s.onlyId
      }),
    // The events first, then the timeline rows naming them.
    recordSettled: (group, orders, actor) =>
      Effect.flatMap(
        outbox.appendMany(
          group.partner_id,
          group.environment,
          orders.map((o) => ({ type: "order.settled", data: { order: eventOrder(o) } }))
        ),
        (eventIds) =>
          repo.addStatusTimelineMany(orders.map((o, i) => ({
            orderId: o.id,
            status: "SETTLED",
            fromStatus: "TRANSFER_COMPLETED",
            eventId: eventIds[i] ?? null,
            actor
          })))
      ),
    find: (orderId) => repo.orderById(orderId)
  })
})

export const SettlementOrdersLive = Layer.effect(SettlementOrders, make).pipe(
  Layer.provide(Layer.mergeAll(OrderRepo.Live, Outbox.Live))
)
