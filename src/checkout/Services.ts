/**
 * The hosted checkout for the composition root (src/app/Server.ts): its service (with the
 * payment providers, the referral seam and the cart seam), its handlers and its worker.
 *
 * The referral seam (`ReferralAttribution`) comes from src/referrals through the composition root;
 * `CartFulfilment` (bulk renew/restore, src/portfolio/Fulfilment.ts) also comes through the composition root.
 */
import { Layer } from "effect"
import { CartCheckoutLive, Checkout } from "./Checkout.js"
import { CheckoutPagesHttpLive, CheckoutSessionsHttpLive } from "./Http.js"
import { PaymentProvidersLive } from "./PaymentProvider.js"
import { CheckoutWorkersLive } from "./Worker.js"

export const CheckoutLive = Checkout.layer.pipe(
  Layer.provide(PaymentProvidersLive)
)

/** The checkout service and the cart seam it implements. */
export const CheckoutServicesLive = Layer.provideMerge(CartCheckoutLive, CheckoutLive)

export const CheckoutHandlersLive = Layer.mergeAll(CheckoutSessionsHttpLive, CheckoutPagesHttpLive)

export { CheckoutWorkersLive }
