/**
 * A brokerage case's moves (the operator's, and the sandbox walk's steps), each decided by
 * src/domain/Brokerage.ts.
 *
 * The contract (Brokerage.ts's header): every move runs in one transaction holding the case row:
 * status, timeline, events (`brokerage.case_updated`, and `brokerage.case_completed` on
 * closed_won) and, when won, the commission row in partner_orders with its ledger posting.
 */
import { Effect, Option } from "effect"
import { type CaseAction, type CaseTransition, dealMoney, isOpen, transition } from "../../domain/Brokerage.js"
import { makeId } from "../../platform/Ids.js"
import type { PartnerOwner } from "../Auth.js"
import type { BrokerageDeps, MoveOptions } from "./Brokerage.js"
import { eventCase } from "./CaseJson.js"
import { BrokerageCaseNotFound, CaseMoveNotAllowed, InvalidCaseMove } from "./Errors.js"
import type { CaseRow } from "./Repo.js"

/** The case, if `partner` (when given) owns it; else BrokerageCaseNotFound. */
export const loadOwned = (d: BrokerageDeps, id: string, partner: PartnerOwner | undefined, forUpdate: boolean) =>
  Effect.gen(function*() {
    const row = yield* d.repo.byId(id, { forUpdate })
    if (
      Option.isNone(row) ||
      (partner && (row.value.partner_id !== partner.partnerId || row.value.environment !== partner.environment))
    ) {
      return yield* BrokerageCaseNotFound.of(id)
    }
    return row.value
  })

type Won = Extract<CaseTransition, { ok: true }>

/** A won case's commission: its order (the brokerage fee) and ledger posting; the deal to store. */
const wonDeal = (d: BrokerageDeps, current: CaseRow, t: Won, options: MoveOptions) =>
  Effect.gen(function*() {
    // The reservation rule: a listed name another partner's valid quote holds is not won
    // here (ListingHeld, 409 with held_until); no listing, no hold.
    yield* d.market.sales.lockForSale(current.environment, current.domain, current.partner_id)
    const m = dealMoney(t.priceCents!, d.settings.feeBps, d.settings.partnerShareBps)
    const order = yield* d.orders.insertBrokerageOrder({
      id: makeId("ord"),
      partnerId: current.partner_id,
      credentialId: current.credential_id,
      environment: current.environment,
      caseId: current.id,
      domain: current.domain,
      feeCents: m.feeCents,
      dealPriceCents: m.dealPriceCents,
      shareBps: m.partnerShareBps,
      currency: current.currency,
      buyerEmail: current.buyer_email
    })
    yield* d.books.recordSale(order)
    yield* d.orders.addTimeline({
      orderId: order.id,
      kind: "status",
      status: "TRANSFER_COMPLETED",
      actor: options.actor,
      note:
        `brokerage fee of case ${current.id} (deal ${m.dealPriceCents} cents at ${m.feeBps} bps; partner share ${m.partnerShareBps} bps)`
    })
    return {
      priceCents: m.dealPriceCents,
      feeBps: m.feeBps,
      feeCents: m.feeCents,
      shareBps: m.partnerShareBps,
      shareCents: m.partnerShareCents,
      orderId: order.id
    }
  })

/** The move's events, in order; the id of its `brokerage.case_updated` (for the timeline). */
const appendEvents = (d: BrokerageDeps, updated: CaseRow, t: Won) =>
  Effect.gen(function*() {
    let updatedEvent: string | null = null
    for (const type of t.events) {
      const data = type === "brokerage.case_completed"
        ? {
          case: eventCase(updated),
          deal_price_cents: updated.deal_price_cents,
          brokerage_fee_cents: updated.fee_cents,
          partner_commission_cents: updated.partner_share_cents,
          currency: updated.currency,
          order_id: updated.order_id
        }
        : { case: eventCase(updated), previous_status: t.from }
      const eventId = yield* d.outbox.append({
        partnerId: updated.partner_id,
        environment: updated.environment,
        type,
        data
      })
      if (type === "brokerage.case_updated") updatedEvent = eventId
    }
    return updatedEvent
  })

/** One move in one transaction: status, timeline, events, and the commission when won. */
export const apply = (
  d: BrokerageDeps,
  id: string,
  decide: (c: CaseRow) => CaseTransition,
  options: MoveOptions
) =>
  d.transaction(Effect.gen(function*() {
    const current = yield* loadOwned(d, id, options.partner, true)
    const t = decide(current)
    if (!t.ok) {
      return yield* (t.kind === "invalid"
        ? new InvalidCaseMove({ message: t.reason })
        : new CaseMoveNotAllowed({ message: t.reason }))
    }
    const deal = t.to === "closed_won" ? yield* wonDeal(d, current, t, options) : null
    const updated = yield* d.repo.update(current.id, {
      status: t.to,
      agreedPriceCents: t.to === "deal_agreed" && t.priceCents !== null ? t.priceCents : undefined,
      deal,
      closed: !isOpen(t.to)
    })
    const updatedEvent = yield* appendEvents(d, updated, t)
    yield* d.repo.addTimeline({
      caseId: updated.id,
      status: t.to,
      fromStatus: t.from,
      priceCents: t.priceCents,
      eventId: updatedEvent,
      actor: options.actor,
      note: options.note ?? null
    })
    return updated
  }))

export const move = (d: BrokerageDeps, id: string, action: CaseAction, options: MoveOptions) =>
  apply(
    d,
    id,
    (c) => transition({ status: c.status, agreedPriceCents: c.agreed_price_cents }, action, options.priceCents),
    options
  )
