/**
 * What waits for a person, read from the services that own it (the same reads as the admin API
 * and the CLI): orders held for review and orders to transfer (partner orders), open brokerage
 * cases, pending offers, failed deliveries (fulfilment), cart items whose refund is under way
 * (portfolio). Each queue shows its newest `LIMIT`, and counts them on the overview; the failed
 * cart items' page itself is paged (./Http.ts), as it keeps the refunded ones too.
 */
import { Effect } from "effect"
import { OPEN_STATUSES } from "../domain/Brokerage.js"
import type { Fulfilment } from "../fulfilment/Fulfilment.js"
import type { Offers } from "../offers/Offers.js"
import type { Brokerage } from "../partner/brokerage/Brokerage.js"
import type { Orders } from "../partner/orders/Orders.js"
import type { Bulk } from "../portfolio/Bulk.js"
import type { Counts } from "./Pages.js"

export const LIMIT = 100

export const makeQueues = (services: {
  readonly orders: Orders
  readonly brokerage: Brokerage
  readonly offers: Offers
  readonly fulfilment: Fulfilment
  readonly bulk: Bulk
}) => {
  const { brokerage, bulk, fulfilment, offers, orders } = services
  const held = orders.listAll({ status: "MANUAL_REVIEW" }, LIMIT)
  const toTransfer = Effect.map(
    Effect.all([orders.listAll({ status: "EXTERNALLY_PAID" }, LIMIT), orders.listAll({ status: "PAID" }, LIMIT)]),
    ([external, paid]) => [...external, ...paid].sort((a, b) => b.created_at.localeCompare(a.created_at))
  )
  const openCases = Effect.map(
    Effect.forEach(OPEN_STATUSES, (status) => brokerage.list({ status }, null, LIMIT)),
    (pages) => pages.flatMap((p) => p.cases).sort((a, b) => b.created_at.localeCompare(a.created_at))
  )
  const pendingOffers = offers.list("pending")
  const failedDeliveries = fulfilment.list("failed", LIMIT)
  const refundsUnderWay = Effect.map(bulk.failedCartItems(["failed"], null, LIMIT), (page) => page.items)
  const counts: Effect.Effect<Counts> = Effect.map(
    Effect.all([held, toTransfer, openCases, pendingOffers, failedDeliveries, refundsUnderWay]),
    ([h, t, c, o, f, r]) => ({
      held: h.length,
      toTransfer: t.length,
      cases: c.length,
      offers: o.length,
      failedDeliveries: f.length,
      failedCartItems: r.length
    })
  )
  return { held, toTransfer, openCases, pendingOffers, failedDeliveries, counts }
}
