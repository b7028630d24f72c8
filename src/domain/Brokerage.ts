/**
 * The brokerage case state machine (docs/brokerage.md). Pure: which moves exist, what each
 * needs (a deal price to close won), the sandbox walk, and the money of a won case.
 *
 *   open ─advance─▶ researching ─advance─▶ contacting_owner ─advance─▶ negotiating ─advance─▶ deal_agreed ─advance─▶ closed_won
 *   any open status ─close lost─▶ closed_lost        any open status ─close cancelled─▶ cancelled
 *   deal_agreed ─close won─▶ closed_won (the same move as advance)
 *
 * `closed_won` needs a deal price (integer USD cents > 0): the one given with the move, else the
 * price recorded when the deal was agreed. The three closed statuses are final. Any other move is
 * refused: a 409 (wrong status) or a 400 (no price for a won close).
 */
import { commissionOf, isAmountCents } from "./Money.js"

export const CASE_STATUSES = [
  "open",
  "researching",
  "contacting_owner",
  "negotiating",
  "deal_agreed",
  "closed_won",
  "closed_lost",
  "cancelled"
] as const
export type CaseStatus = typeof CASE_STATUSES[number]

/** The happy path, in order. */
export const PATH: ReadonlyArray<CaseStatus> = [
  "open",
  "researching",
  "contacting_owner",
  "negotiating",
  "deal_agreed",
  "closed_won"
]

export const CLOSED_STATUSES: ReadonlyArray<CaseStatus> = ["closed_won", "closed_lost", "cancelled"]
export const OPEN_STATUSES: ReadonlyArray<CaseStatus> = CASE_STATUSES.filter((s) => !CLOSED_STATUSES.includes(s))

export const isOpen = (s: CaseStatus): boolean => OPEN_STATUSES.includes(s)

export const TIERS = ["managed", "self_serve"] as const
export type Tier = typeof TIERS[number]

export const CLOSE_OUTCOMES = ["won", "lost", "cancelled"] as const
export type CloseOutcome = typeof CLOSE_OUTCOMES[number]

export type CaseAction = { readonly _tag: "advance" } | { readonly _tag: "close"; readonly outcome: CloseOutcome }

export const CASE_EVENT_UPDATED = "brokerage.case_updated"
export const CASE_EVENT_COMPLETED = "brokerage.case_completed"

export interface CaseFacts {
  readonly status: CaseStatus
  /** Recorded when the deal was agreed (may be null). */
  readonly agreedPriceCents: number | null
}

export type CaseTransition =
  | {
    readonly ok: true
    readonly from: CaseStatus
    readonly to: CaseStatus
    /** The deal price the move records (deal_agreed: when given; closed_won: always). */
    readonly priceCents: number | null
    /** Events written with the move, in order. */
    readonly events: ReadonlyArray<typeof CASE_EVENT_UPDATED | typeof CASE_EVENT_COMPLETED>
  }
  | { readonly ok: false; readonly from: CaseStatus; readonly kind: "conflict" | "invalid"; readonly reason: string }

/** A deal price: positive, within the one bound of every amount (Money.ts, 10^12 cents). */
const validPrice = (p: number | undefined): p is number => p !== undefined && isAmountCents(p) && p > 0

/** One move. `priceCents` is the price given with the move, if any. */
export const transition = (c: CaseFacts, action: CaseAction, priceCents?: number): CaseTransition => {
  const from = c.status
  if (!isOpen(from)) {
    return { ok: false, from, kind: "conflict", reason: `The case is already ${from}; no further changes are possible` }
  }
  if (priceCents !== undefined && !validPrice(priceCents)) {
    return {
      ok: false,
      from,
      kind: "invalid",
      reason: "price: must be a positive integer number of USD cents, at most 10^12"
    }
  }
  const to: CaseStatus = action._tag === "advance"
    ? PATH[PATH.indexOf(from) + 1]!
    : action.outcome === "won"
    ? "closed_won"
    : action.outcome === "lost"
    ? "closed_lost"
    : "cancelled"
  if (to === "closed_won") {
    if (from !== "deal_agreed") {
      return {
        ok: false,
        from,
        kind: "conflict",
        reason: `Cannot close a case won from status ${from}: agree the deal first (deal_agreed)`
      }
    }
    const price = priceCents ?? c.agreedPriceCents ?? undefined
    if (!validPrice(price)) {
      return {
        ok: false,
        from,
        kind: "invalid",
        reason: "price: closing a case won needs the deal price in USD cents (none was agreed)"
      }
    }
    return { ok: true, from, to, priceCents: price, events: [CASE_EVENT_UPDATED, CASE_EVENT_COMPLETED] }
  }
  if (priceCents !== undefined && to !== "deal_agreed") {
    return {
      ok: false,
      from,
      kind: "invalid",
      reason: `price: only recorded when the deal is agreed or the case is won, not for ${to}`
    }
  }
  return {
    ok: true,
    from,
    to,
    priceCents: to === "deal_agreed" ? priceCents ?? null : null,
    events: [CASE_EVENT_UPDATED]
  }
}

/**
 * The sandbox walk: one step along the happy path; at deal_agreed the case closes won at the
 * agreed price, else at the buyer's budget (so partners see brokerage.case_completed).
 */
export const sandboxStep = (c: CaseFacts & { readonly budgetCents: number }): CaseTransition =>
  c.status === "deal_agreed"
    ? transition(c, { _tag: "advance" }, c.agreedPriceCents ?? Math.max(1, c.budgetCents))
    : transition(c, { _tag: "advance" })

/** The service's fee and the partner's share of it, for a deal price. */
export interface DealMoney {
  readonly dealPriceCents: number
  readonly feeBps: number
  readonly feeCents: number
  readonly partnerShareBps: number
  readonly partnerShareCents: number
}

export const dealMoney = (dealPriceCents: number, feeBps: number, partnerShareBps: number): DealMoney => {
  const feeCents = commissionOf(dealPriceCents, feeBps)
  return {
    dealPriceCents,
    feeBps,
    feeCents,
    partnerShareBps,
    partnerShareCents: commissionOf(feeCents, partnerShareBps)
  }
}

/** Plain words for the buyer's progress page. */
export const STATUS_WORDS: Readonly<Record<CaseStatus, { readonly title: string; readonly text: string }>> = {
  open: { title: "Request received", text: "Your request is with our brokers and will be picked up shortly." },
  researching: { title: "Researching", text: "We are researching the domain and who holds it." },
  contacting_owner: { title: "Contacting the owner", text: "We are reaching out to the current owner." },
  negotiating: { title: "Negotiating", text: "We are negotiating with the owner on your behalf." },
  deal_agreed: { title: "Deal agreed", text: "The owner has agreed to a deal; we are arranging payment and transfer." },
  closed_won: { title: "Acquired", text: "The deal is closed: the domain is being transferred to you." },
  closed_lost: { title: "Closed without a deal", text: "We could not reach a deal for this domain." },
  cancelled: { title: "Cancelled", text: "This request was cancelled." }
}
