/**
 * The referrals capability as one layer: links, clicks, attribution (the checkout's seam), the
 * console's members' door onto links and analytics (MemberReferrals), and the handlers.
 */
import { Layer } from "effect"
import { ReferralServicesLive } from "./AttributionLive.js"
import { ReferralHandlersLive } from "./Http.js"
import { MemberReferrals } from "./MemberReferrals.js"

export const ReferralsLive = ReferralHandlersLive.pipe(
  Layer.provideMerge(MemberReferrals.Default.pipe(Layer.provideMerge(ReferralServicesLive)))
)
