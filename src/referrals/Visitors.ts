/**
 * The in-batch half of click uniqueness (src/domain/Referral.ts `classifyClick`: a click is unique
 * unless it is a bot's, or the same visitor's previous click on the link is at most the repeat
 * window old). Replicas share the other half through `referral_visitors` (src/referrals/Repo.ts
 * `writeClicks`).
 *
 * Contract: within one batch, every click of a visitor on a link but the first is decided here,
 * against the visitor's previous click in the batch. The first one is only provisionally unique:
 * its previous click may be in the database (written by this or another replica), so it is listed
 * in `visits`, one per link and visitor, and the database has the last word on it.
 */
import { classifyClick } from "../domain/Referral.js"

export interface BatchClick {
  readonly id: string
  readonly linkId: string
  /** Who clicked: a hash of the day's IP hash and the user agent. */
  readonly visitor: string
  readonly at: number
  readonly bot: boolean
}

/** A visitor's clicks on a link in one batch, as `referral_visitors` stores them. */
export interface Visit {
  readonly link_id: string
  readonly visitor: string
  /** The batch's first click: unique iff the visitor's last stored click is older than the window. */
  readonly unique_click_id: string
  readonly unique_at: Date
  /** The batch's latest click. */
  readonly last_at: Date
}

export interface BatchUniqueness {
  /** Click id → unique within the batch (for the first click of a visit: provisionally). */
  readonly unique: ReadonlyMap<string, boolean>
  /** Sorted by link and visitor, so that concurrent writers lock their rows in one order. */
  readonly visits: ReadonlyArray<Visit>
}

export const classifyBatch = (clicks: ReadonlyArray<BatchClick>, repeatMs: number): BatchUniqueness => {
  const seen = new Map<string, number>()
  const unique = new Map<string, boolean>()
  const visits = new Map<
    string,
    { link_id: string; visitor: string; unique_click_id: string; unique_at: Date; last_at: Date }
  >()
  // Time order (a batch is in arrival order, which the clock may not quite follow).
  for (const c of [...clicks].sort((a, b) => a.at - b.at)) {
    unique.set(c.id, classifyClick(seen, c, repeatMs))
    if (c.bot) continue
    const key = `${c.linkId}|${c.visitor}`
    const visit = visits.get(key)
    if (visit === undefined) {
      visits.set(key, {
        link_id: c.linkId,
        visitor: c.visitor,
        unique_click_id: c.id,
        unique_at: new Date(c.at),
        last_at: new Date(c.at)
      })
    } else {
      visit.last_at = new Date(c.at)
    }
  }
  const sorted = [...visits.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v)
  return { unique, visits: sorted }
}
