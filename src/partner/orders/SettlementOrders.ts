/**
 * The orders slice's side of settlement (the port src/partner/ledger/SettlementOrders.ts): claims
 * due orders as SETTLED, and records the move on their timelines and as `order.settled` events.
 */
import { Effect, Layer } from "effect"
import { Outbox } from "../events/Outbox.js"
import { type DueOrder, SettlementOrders } from "../ledger/SettlementOrders.js"
import { OrderRepo } from "./Repo.js"
import { eventOrder } from "./View.js"

const make = Effect.gen(function*() {
  const repo = yield* OrderRepo
  const outbox = yield* Outbox

  /** One partner and environment's settled orders: their events, then timeline rows naming them. */
  const recordFor = (orders: ReadonlyArray<DueOrder>, actor: string) =>
    Effect.gen(function*() {
      const first = orders[0]
      if (first === undefined) return
      const eventIds = yield* outbox.appendMany(
        first.partner_id,
        first.environment,
        orders.map((o) => ({ type: "order.settled", data: { order: eventOrder(o) } }))
      )
      yield* repo.addStatusTimelineMany(orders.map((o, i) => ({
        orderId: o.id,
        status: "SETTLED",
        fromStatus: "TRANSFER_COMPLETED",
        eventId: eventIds[i] ?? null,
        actor
      })))
    })

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
    recordSettled: (orders, actor) => {
      // A run claims one group at a time, so this is one batch; grouped anyway, as events are per partner.
      const batches = new Map<string, Array<DueOrder>>()
      for (const o of orders) {
        const key = `${o.partner_id}\u0000${o.environment}`
        const batch = batches.get(key)
        if (batch) batch.push(o)
        else batches.set(key, [o])
      }
      return Effect.forEach(batches.values(), (batch) => recordFor(batch, actor), { discard: true })
    },
    find: (orderId) => repo.orderById(orderId)
  })
})

export const SettlementOrdersLive = Layer.effect(SettlementOrders, make).pipe(
  Layer.provide(Layer.mergeAll(OrderRepo.Live, Outbox.Live))
)
