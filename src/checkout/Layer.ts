/**
 * The hosted checkout as one layer: its service (with the payment providers), the cart seam it
 * implements (`CartCheckout`), its handlers. The referral seam (`ReferralAttribution`, src/referrals)
 * and the cart seam's `CartFulfilment` (src/portfolio/Fulfilment.ts) come from src/app/Layers.ts.
 */
import { Layer } from "effect"
import { CartCheckoutLive, Checkout } from "./Checkout.js"
import { CheckoutPagesHttpLive } from "./Http.js"
import { PaymentProvidersLive } from "./PaymentProvider.js"
import { CheckoutSessionsHttpLive } from "./SessionsHttp.js"

export const CheckoutLive = Layer.mergeAll(CheckoutSessionsHttpLive, CheckoutPagesHttpLive).pipe(
  Layer.provideMerge(Layer.provideMerge(CartCheckoutLive, Checkout.layer.pipe(Layer.provide(PaymentProvidersLive))))
)

export { CheckoutWorkersLive } from "./Worker.js"
