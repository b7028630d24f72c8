/**
 * The hosted checkout as one layer: its service (with the payment providers), the cart seam it
 * implements (`CartCheckout`), its handlers, and the console's door onto a partner's sessions
 * (`MemberSessions`, over the partner members service). The referral seam (`ReferralAttribution`, src/referrals)
 * and the cart seam's `CartFulfilment` (src/portfolio/Fulfilment.ts) come from src/app/Layers.ts.
 */
import { Layer } from "effect"
import { CartCheckoutLive, Checkout } from "./Checkout.js"
import { CheckoutPagesHttpLive } from "./Http.js"
import { MemberSessions } from "./MemberSessions.js"
import { PaymentProvidersLive } from "./PaymentProvider.js"
import { CheckoutSessionsHttpLive } from "./SessionsHttp.js"

export const CheckoutLive = Layer.mergeAll(CheckoutSessionsHttpLive, CheckoutPagesHttpLive, MemberSessions.Live).pipe(
  Layer.provideMerge(Layer.provideMerge(CartCheckoutLive, Checkout.layer.pipe(Layer.provide(PaymentProvidersLive))))
)

export { CheckoutWorkersLive } from "./Worker.js"
