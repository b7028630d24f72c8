/**
 * What can go wrong choosing, retrieving and operating a delivery, as domain errors
 * (platform/http/Errors.ts) with their wire code and status. A registrar's refusal of a transfer is not
 * an API error: it is the delivery's `failed` state and its `transfer.failed` event.
 */
import { clipEcho, DomainError } from "../platform/http/Errors.js"

/** PUT /orders/{id}/delivery after the delivery started: the name is already on its way. */
export class DeliveryAlreadyStarted extends DomainError<DeliveryAlreadyStarted>()("DeliveryAlreadyStarted", {
  code: "conflict",
  status: 409,
  description: "The delivery has started; its method and target can no longer change"
}) {}

/** A retrieve_url that is unknown, tampered, expired or already used: nothing to hand over. */
export class TransferCodeUnavailable extends DomainError<TransferCodeUnavailable>()("TransferCodeUnavailable", {
  code: "not_found",
  status: 404,
  description: "The auth code link is invalid, expired or was already used"
}) {}

/** An operator action on an order that has no delivery. */
export class DeliveryNotFound extends DomainError<DeliveryNotFound>()("DeliveryNotFound", {
  code: "not_found",
  status: 404,
  description: "The order has no delivery"
}) {
  static of(orderId: string) {
    return new DeliveryNotFound({ message: `Order ${clipEcho(orderId)} has no delivery` })
  }
}

/** Retry of a delivery that completed: nothing to do again. */
export class DeliveryNotRetryable extends DomainError<DeliveryNotRetryable>()("DeliveryNotRetryable", {
  code: "conflict",
  status: 409,
  description: "The delivery completed; it cannot be retried"
}) {}
