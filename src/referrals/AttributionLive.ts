/**
 * The real `ReferralAttribution` (the seam in ./Attribution.ts): the signed `mk_ref` cookie set by
 * `GET /r/{code}`, valid for REFERRAL_WINDOW_DAYS after its click; each click overwrites it, so
 * the last click wins, whoever's link it was. `checkoutStarted` feeds the funnel's roll-up once
 * per link, visitor and domain.
 */
import { Effect, Layer } from "effect"
import { ReferralAttribution } from "./Attribution.js"
import { Referrals } from "./Referrals.js"

export const ReferralAttributionLive = Layer.effect(
  ReferralAttribution,
  Effect.map(Referrals, (r) => ({
    resolve: (cookie, now) => Effect.sync(() => r.resolve(cookie, now)),
    checkoutStarted: (attribution, input) => r.checkoutStarted(attribution, input)
  }))
)

/** Referrals, its click writer and the attribution the buy page uses: one layer for the composition root. */
export const ReferralServicesLive = ReferralAttributionLive.pipe(Layer.provideMerge(Referrals.Live))
