/**
 * What the orders slice needs from fulfilment (src/fulfilment), as a port the orders slice owns:
 * the orders slice decides when an order becomes deliverable (recorded EXTERNALLY_PAID, paid PAID,
 * cleared from manual review) and shows where its transfer stands; fulfilment runs the delivery.
 * Implemented by src/fulfilment/Port.ts (needing only the database) and provided by
 * src/app/Layers.ts below the Partner API, so the orders slice imports nothing of fulfilment, and
 * fulfilment moves orders only through `Orders.move`.
 *
 * `deliverable` runs in the caller's transaction: the delivery exists exactly when the order is
 * committed deliverable (a crash cannot lose it), once per order however often it is called.
 */
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { PartnerEnvironment } from "../Auth.js"

export const TRANSFER_STATES = [
  "pending",
  "auth_code_ready",
  "pushing",
  "awaiting_registrar",
  "completed",
  "failed"
] as const
export type TransferState = typeof TRANSFER_STATES[number]

/** Where an order's delivery stands (the `transfer` object of the order detail). */
export interface DeliveryView {
  readonly state: TransferState
  readonly method: "push" | "auth_code" | null
  readonly target: string | null
  readonly attempts: number
  readonly last_error: string | null
  readonly updated_at: Date
}

export class OrderDeliveries extends Context.Tag("app/OrderDeliveries")<OrderDeliveries, {
  /** The order may be delivered now (paid, not held): its delivery is queued (or made ready). Caller's transaction. */
  readonly deliverable: (order: {
    readonly id: string
    readonly partner_id: string
    readonly environment: PartnerEnvironment
    readonly domain: string
  }) => Effect.Effect<void>
  /** The order's delivery, if one was asked for or queued. */
  readonly view: (orderId: string) => Effect.Effect<Option.Option<DeliveryView>>
}>() {}
