/**
 * What the outbox needs from the webhooks slice, as a port the events slice owns: new events are
 * queued for delivery to the partner's active endpoint in the transaction that appends them. The
 * webhooks slice owns its endpoints and deliveries; it implements this in
 * src/partner/webhooks/DeliveryQueue.ts, provided by src/partner/Layer.ts, so the events slice
 * imports nothing of webhooks (webhooks → events only: test events and redelivery read the outbox).
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { PartnerEnvironment } from "../Auth.js"

/** An event just appended, with the key its deliveries are ordered by (null: no order). */
export interface QueuedEvent {
  readonly eventId: string
  readonly orderingKey: string | null
}

export class DeliveryQueue extends Context.Tag("app/PartnerDeliveryQueue")<DeliveryQueue, {
  /**
   * Queues one delivery per event when the partner has an active endpoint for the environment
   * (else nothing). Runs in the caller's transaction: a check, then one set-based insert.
   */
  readonly queue: (
    partnerId: string,
    environment: PartnerEnvironment,
    events: ReadonlyArray<QueuedEvent>
  ) => Effect.Effect<void>
}>() {}
