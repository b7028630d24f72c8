/**
 * The reservation rule: who may take a listed name now. Pure.
 *
 * A listing carries at most one hold: the seller it is held for (a partner id; the marketplace's
 * own sales claim as `ptn_marketplace`) and until when. A partner's valid quote is such a hold.
 * Every channel that sells the name (partner orders, hosted checkout sessions and their payment,
 * the `/buy/` page, brokerage deals) claims the listing for its seller under the listing's row
 * lock (Market.sales.lockForSale), and this rule answers:
 *
 *   no hold, or an expired one (until ≤ now)  → free: anyone may take it
 *   a live hold for the claimant              → free for the claimant
 *   a live hold for another seller            → refused, held until `until` (409 conflict)
 *
 * Holding again (`hold`): a new hold replaces a free listing's; the holder's own live hold is
 * extended, never shortened; another seller's live hold is refused (the caller checks `claim`
 * first, so `hold` never takes a live hold away from its owner).
 */

export interface Hold {
  readonly holder: string
  readonly until: Date
}

export type Claim =
  | { readonly ok: true }
  | { readonly ok: false; readonly holder: string; readonly heldUntil: Date }

/** The listing's hold as stored: both columns set, or no hold. */
export const holdOf = (heldBy: string | null, heldUntil: Date | null): Hold | null =>
  heldBy === null || heldUntil === null ? null : { holder: heldBy, until: heldUntil }

/** A hold still in force at `now`. */
export const isLive = (hold: Hold | null, now: Date): hold is Hold =>
  hold !== null && hold.until.getTime() > now.getTime()

/** May `claimant` take the listing now? */
export const claim = (hold: Hold | null, claimant: string, now: Date): Claim =>
  !isLive(hold, now) || hold.holder === claimant
    ? { ok: true }
    : { ok: false, holder: hold.holder, heldUntil: hold.until }

export type Holding =
  | { readonly ok: true; readonly next: Hold }
  | { readonly ok: false; readonly holder: string; readonly heldUntil: Date }

/** The hold after `holder` holds the listing until `until` (refused when another seller's hold is live). */
export const hold = (current: Hold | null, holder: string, until: Date, now: Date): Holding => {
  const c = claim(current, holder, now)
  if (!c.ok) return c
  const keep = isLive(current, now) && current.until.getTime() > until.getTime()
  return { ok: true, next: keep ? current : { holder, until } }
}
