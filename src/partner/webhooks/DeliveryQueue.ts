/**
 * The webhooks slice's side of the outbox's `DeliveryQueue` port (src/partner/events/DeliveryQueue.ts):
 * new events' deliveries, queued in the appending transaction when the partner has an active
 * endpoint. Needs only the database; src/partner/Layer.ts provides it to the outbox.
 */
import { Effect, Layer } from "effect"
import { DeliveryQueue } from "../events/DeliveryQueue.js"
import { WebhookRepo } from "./Repo.js"

export const DeliveryQueueLive = Layer.effect(
  DeliveryQueue,
  Effect.map(WebhookRepo, (repo) => DeliveryQueue.of({ queue: repo.queueMany }))
).pipe(Layer.provide(WebhookRepo.Live))
