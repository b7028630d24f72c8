/** The referrals capability as one layer: links, clicks, attribution (the checkout's seam) and the handlers. */
import { Layer } from "effect"
import { ReferralServicesLive } from "./AttributionLive.js"
import { ReferralHandlersLive } from "./Http.js"

export const ReferralsLive = ReferralHandlersLive.pipe(Layer.provideMerge(ReferralServicesLive))
