/**
 * Fulfilment as one layer: the delivery service over its registrar (live Realtime Register or the
 * sandbox registrar), the partner and admin handlers. The orders port (./Port.ts) is provided by
 * src/app/Layers.ts below the Partner API; Orders, the outbox, the registrar client, the service
 * secret and the settings come from there too.
 */
import { Layer } from "effect"
import { Fulfilment } from "./Fulfilment.js"
import { AdminDeliveriesHttpLive, PartnerDeliveryHttpLive } from "./Http.js"
import { SandboxDeliveriesLive } from "./Port.js"
import { DeliveryRegistrarsLive } from "./Registrar.js"

export const FulfilmentLive = Layer.mergeAll(PartnerDeliveryHttpLive, AdminDeliveriesHttpLive, SandboxDeliveriesLive)
  .pipe(
    Layer.provideMerge(Fulfilment.Live),
    Layer.provideMerge(DeliveryRegistrarsLive)
  )

export { OrderDeliveriesLive } from "./Port.js"
export { FulfilmentWorkersLive } from "./Worker.js"
