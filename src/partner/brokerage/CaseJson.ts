/**
 * A brokerage case as JSON: as events carry it (`data.case`, its id the webhook ordering key), as
 * the API answers it, and its timeline rows. The contract: money in cents, times ISO 8601.
 */
import { iso } from "../Common.js"
import type { CaseRow, CaseTimelineRow } from "./Repo.js"

/** The case as carried by events: `data.case` (its id is the webhook ordering key). */
export const eventCase = (c: CaseRow) => ({
  id: c.id,
  domain: c.domain,
  tier: c.tier,
  status: c.status,
  budget: c.budget_cents,
  currency: c.currency,
  deal_price_cents: c.deal_price_cents,
  updated_at: iso(c.updated_at)!
})

/** Plain JSON of the case; `progress_url` added by the caller that knows the base URL. */
export const caseJson = (c: CaseRow, progressUrl: string) => ({
  id: c.id,
  domain: c.domain,
  tier: c.tier,
  status: c.status,
  environment: c.environment,
  buyer_email: c.buyer_email,
  budget: c.budget_cents,
  currency: c.currency,
  notes: c.notes,
  progress_url: progressUrl,
  agreed_price_cents: c.agreed_price_cents,
  deal_price_cents: c.deal_price_cents,
  brokerage_fee_cents: c.fee_cents,
  partner_commission_cents: c.partner_share_cents,
  order_id: c.order_id,
  created_at: iso(c.created_at)!,
  updated_at: iso(c.updated_at)!,
  closed_at: iso(c.closed_at)
})
export type CaseJson = ReturnType<typeof caseJson>

export const timelineJson = (t: CaseTimelineRow) => ({
  at: iso(t.at)!,
  status: t.status,
  from_status: t.from_status,
  price_cents: t.price_cents,
  event_id: t.event_id,
  actor: t.actor,
  note: t.note
})
