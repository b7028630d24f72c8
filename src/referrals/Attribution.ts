/**
 * The seam between the public buy page (src/checkout) and referrals (src/referrals): which
 * partner's link, if any, a purchase is attributed to.
 *
 * `GET /r/{code}` sets the attribution cookie `REFERRAL_COOKIE` (last click wins, valid for
 * `REFERRAL_WINDOW_DAYS`). The buy page reads it with `resolve` when it opens a checkout and keeps
 * the answer on the session; when that session is paid, the order is a referral sale
 * (`payment_model: "referral"`, `partner_id` = the link's partner, `referral_link_id`), recorded
 * through `Books.recordSale` in the payment's transaction. `checkoutStarted` feeds the funnel.
 *
 * `ReferralAttribution.None` attributes nothing; src/referrals provides the real layer.
 */
import { Context, Effect, Layer, Option } from "effect"
import type { PartnerEnvironment } from "../partner/Auth.js"

export const REFERRAL_COOKIE = "mk_ref"

export interface Attribution {
  readonly partnerId: string
  readonly environment: PartnerEnvironment
  readonly linkId: string
  readonly clickId: string
  /**
   * The browser that clicked: the id of its first click, kept across its later clicks (so a
   * visitor's repeated checkouts of one domain count once in the funnel).
   */
  readonly visitorId: string
}

export class ReferralAttribution extends Context.Tag("app/ReferralAttribution")<ReferralAttribution, {
  /** The partner whose link the buyer clicked last, when that click is still within the window. */
  readonly resolve: (cookie: string | undefined, now: Date) => Effect.Effect<Option.Option<Attribution>>
  /**
   * A checkout was opened for an attributed buyer (the funnel's "checkouts started"): counted once
   * per link, visitor and domain, however many sessions the visitor opens.
   */
  readonly checkoutStarted: (
    attribution: Attribution,
    input: { readonly sessionId: string; readonly domain: string }
  ) => Effect.Effect<void>
}>() {
  static readonly None = Layer.succeed(ReferralAttribution, {
    resolve: () => Effect.succeed(Option.none()),
    checkoutStarted: () => Effect.void
  })
}
