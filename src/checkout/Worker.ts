/**
 * Reconciliation of payments in progress (e.g. the process was killed between the provider's
 * confirmation and our order, or Stripe's webhook was lost while the buyer paid on its page:
 * `GET /v1/checkout/sessions/{id}`), and refunds at the provider of paid sessions whose order
 * was refunded or cancelled: once at boot, then every CHECKOUT_RECONCILE_INTERVAL,
 * one replica at a time. `Checkout.complete` is idempotent, so a run racing a webhook or the
 * buyer's own request still creates one order.
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { runExclusive } from "../platform/jobs/Singleton.js"
import { Checkout } from "./Checkout.js"
import { CheckoutConfig } from "./Settings.js"

export const CheckoutWorkersLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const checkoutSettings = yield* CheckoutConfig
    const checkout = yield* Checkout
    const once = runExclusive("checkout-reconcile", checkout.reconcile).pipe(
      Effect.tap((r) =>
        r._tag === "Some" && (r.value.checked > 0 || r.value.refunded > 0)
          ? Effect.logInfo("checkout reconciliation").pipe(
            Effect.annotateLogs({ checked: r.value.checked, completed: r.value.completed, refunded: r.value.refunded })
          )
          : Effect.void
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("checkout reconciliation failed", cause))
    )
    const interval = checkoutSettings.reconcileInterval
    yield* Effect.forkScoped(
      Duration.toMillis(interval) > 0
        ? Effect.asVoid(once.pipe(Effect.repeat(Schedule.spaced(interval))))
        : Effect.asVoid(once)
    )
  })
)
