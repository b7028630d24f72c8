/**
 * Fulfilment's side of the partner slices' ports. The orders slice's port (src/partner/orders/Deliveries.ts): a deliverable
 * order gets its delivery row in the order's own transaction (ready unless DELIVERY_AUTOSTART is
 * false), and the order detail reads where it stands. Needs only the database and the settings.
 */
import { Effect, Layer, Option } from "effect"
import { OrderDeliveries } from "../partner/orders/Deliveries.js"
import { SandboxDeliveries } from "../partner/sandbox/Deliveries.js"
import { Fulfilment, viewOf } from "./Fulfilment.js"
import { DeliveryRepo } from "./Repo.js"
import { FulfilmentConfig } from "./Settings.js"

export const OrderDeliveriesLive = Layer.effect(
  OrderDeliveries,
  Effect.gen(function*() {
    const repo = yield* DeliveryRepo
    const settings = yield* FulfilmentConfig
    return {
      deliverable: (order) =>
        repo.ensure({
          orderId: order.id,
          partnerId: order.partner_id,
          environment: order.environment,
          domain: order.domain,
          ready: settings.autostart
        }),
      view: (orderId) => Effect.map(repo.byOrder(orderId), Option.map(viewOf))
    }
  })
).pipe(Layer.provideMerge(DeliveryRepo.Live))

/** Fulfilment's side of the sandbox's port (src/partner/sandbox/Deliveries.ts): a delivery step now. */
export const SandboxDeliveriesLive = Layer.effect(
  SandboxDeliveries,
  Effect.map(Fulfilment, (f) => ({ advance: f.advance }))
)
