/**
 * The hosted checkout for the composition root (src/app/Server.ts): its service (with the
 * payment providers, the referral seam and the cart seam), its handlers and its worker.
 *
 * The referral seam (`ReferralAttribution`) comes from src/referrals through the composition root;
 * `CartFulfilment.None` stands in until the bulk renew/restore capability provides the real layer.
 */
import { Layer } from "effect"
import { CartFulfilment } from "./Cart.js"
import { CartCheckoutLive, Checkout } from "./Checkout.js"
import { CheckoutPagesHttpLive, CheckoutSessionsHttpLive } from "./Http.js"
import { PaymentProvidersLive } from "./PaymentProvider.js"
import { CheckoutWorkersLive } from "./Worker.js"

export const CheckoutLive = Checkout.layer.pipe(
  Layer.provide(Layer.mergeAll(PaymentProvidersLive, CartFulfilment.None))
)

/** The checkout service and the cart seam it implements. */
export const CheckoutServicesLive = Layer.provideMerge(CartCheckoutLive, CheckoutLive)

export const CheckoutHandlersLive = Layer.mergeAll(CheckoutSessionsHttpLive, CheckoutPagesHttpLive)

export { CheckoutWorkersLive }
