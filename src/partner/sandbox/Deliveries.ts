/**
 * What the sandbox's advance needs from fulfilment (src/fulfilment), as a port the sandbox owns:
 * run an order's delivery step now. Implemented by src/fulfilment/Port.ts over the delivery
 * service, so the partner slice imports nothing of fulfilment.
 */
import type { Effect } from "effect"
import { Context } from "effect"

/** Where a delivery stood when the sandbox's `advance` came. */
export type Advanced =
  /** No delivery, or a completed one: the order takes its other moves. */
  | { readonly _tag: "NoDelivery" }
  /** Its next step ran (or is running in a worker that holds it). */
  | { readonly _tag: "Stepped" }
  /** Failed for good: an operator decides. */
  | { readonly _tag: "Failed"; readonly lastError: string | null }

export class SandboxDeliveries extends Context.Tag("partner/SandboxDeliveries")<SandboxDeliveries, {
  readonly advance: (orderId: string) => Effect.Effect<Advanced>
}>() {}
