/**
 * Brokerage cases: eligibility, creation, the operator moves, the sandbox walk, reads.
 *
 * Contract:
 * - Eligibility lists every reason a domain cannot be brokered: `invalid_domain`, `reserved`
 *   (the reserved/blocked list of the availability engine), `already_in_case` (an open case of
 *   any partner in the environment), `live_site` (SiteProbe.ts, through the SSRF-safe client).
 *   The live-site finding, the only costly part, is reused per domain for
 *   BROKERAGE_ELIGIBILITY_TTL; the other reasons are read fresh every time.
 * - One open case per domain and environment across all partners: the partial unique index
 *   decides a race, the loser gets 409 `conflict` with reason `already_in_case`.
 * - Every move runs in one transaction holding the case row: status, timeline, events
 *   (`brokerage.case_updated`, and `brokerage.case_completed` on closed_won) and, when won, the
 *   commission row in partner_orders with its ledger posting (src/partner/ledger/Books.ts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Context, Duration, Effect, Either, Layer, Option } from "effect"
import { AvailabilityEngine } from "../../availability/Availability.js"
import { reservedPatternsFor } from "../../domain/Availability.js"
import {
  type CaseAction,
  type CaseStatus,
  type CaseTransition,
  dealMoney,
  isOpen,
  sandboxStep,
  type Tier,
  transition
} from "../../domain/Brokerage.js"
import { parseDomainName } from "../../domain/DomainName.js"
import { LookupConfig } from "../../lookup/Settings.js"
import { Market } from "../../market/Market.js"
import { AppConfig } from "../../platform/Config.js"
import { transactionOf } from "../../platform/db/SqlTransaction.js"
import { makeId } from "../../platform/Ids.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import type { PartnerEnvironment, PartnerIdentity } from "../Auth.js"
import { iso } from "../Common.js"
import { Outbox } from "../events/Outbox.js"
import { Books } from "../ledger/Books.js"
import { Settlement } from "../ledger/Settlement.js"
import { OrderRepo } from "../orders/Repo.js"
import { SandboxOnly } from "../sandbox/Errors.js"
import {
  BrokerageCaseNotFound,
  CaseMoveNotAllowed,
  DomainNotEligible,
  InvalidBrokerageDomain,
  InvalidCaseMove
} from "./Errors.js"
import { BrokerageRepo, type CaseFilters, type CaseRow, type CaseTimelineRow } from "./Repo.js"
import { BrokerageConfig } from "./Settings.js"
import { probeOutbound, probeSite, type SiteFinding } from "./SiteProbe.js"

export const ELIGIBILITY_REASONS = ["invalid_domain", "reserved", "already_in_case", "live_site"] as const
export type EligibilityReason = typeof ELIGIBILITY_REASONS[number]

export const PROGRESS_PURPOSE = "brokerage-progress"

export interface Eligibility {
  readonly domain: string
  readonly eligible: boolean
  readonly reasons: ReadonlyArray<EligibilityReason>
  readonly details: ReadonlyArray<{ readonly reason: EligibilityReason; readonly message: string }>
  readonly site: {
    readonly classification: SiteFinding["classification"]
    readonly url: string
    readonly status: number | null
  } | null
  readonly checked_at: string
}

export interface CaseInput {
  readonly domain: string
  readonly tier: Tier
  readonly buyer_email: string
  readonly budget: number
  readonly notes?: string | undefined
}

export interface MoveOptions {
  readonly actor: string
  readonly priceCents?: number | undefined
  readonly note?: string | undefined
  /** Partner-scoped moves (sandbox advance) only see the partner's own cases. */
  readonly partner?: PartnerIdentity | undefined
}

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

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const transaction = transactionOf(sql)
  const repo = yield* BrokerageRepo
  const orders = yield* OrderRepo
  const market = yield* Market
  const outbox = yield* Outbox
  const books = yield* Books
  const settlement = yield* Settlement
  const secrets = yield* ServiceSecret
  const engine = yield* AvailabilityEngine
  const config = yield* AppConfig
  const brokerageSettings = yield* BrokerageConfig
  const lookupSettings = yield* LookupConfig
  const settings = brokerageSettings
  const outbound = probeOutbound({
    allowLoopback: config.outboundAllowLoopback,
    allowedPorts: config.outboundAllowedPorts,
    dnsResolver: lookupSettings.dnsResolver,
    timeoutMs: Duration.toMillis(settings.siteTimeout)
  })
  const ttlMs = Duration.toMillis(settings.eligibilityTtl)
  const siteCache = new Map<string, { at: number; finding: SiteFinding }>()

  const progressUrl = (caseId: string) =>
    `${config.baseUrl}/brokerage/progress?t=${secrets.sign(PROGRESS_PURPOSE, { c: caseId })}`

  /** The live-site finding of a domain, reused for BROKERAGE_ELIGIBILITY_TTL (per process). */
  const site = (domain: string) =>
    Effect.gen(function*() {
      const now = Date.now()
      const hit = siteCache.get(domain)
      if (hit && now - hit.at < ttlMs) return hit.finding
      const finding = yield* probeSite(outbound, domain, settings.siteTimeout)
      if (ttlMs > 0) {
        if (siteCache.size >= 1000) {
          for (const [k, v] of siteCache) if (now - v.at >= ttlMs || siteCache.size >= 1000) siteCache.delete(k)
        }
        siteCache.set(domain, { at: now, finding })
      }
      return finding
    })

  const reservedHit = (name: { registrable: string; label: string; suffix: string }, environment: PartnerEnvironment) =>
    Effect.gen(function*() {
      if (environment === "sandbox" && name.label.includes("reserved")) {
        return Option.some("sandbox: synthetic reserved name")
      }
      const list = yield* engine.listReserved.pipe(Effect.orDie)
      const patterns = new Set(reservedPatternsFor(name.registrable, name.label, name.suffix))
      const row = list.find((r) => patterns.has(r.pattern))
      return row ? Option.some(`${row.kind}: ${row.reason}`) : Option.none<string>()
    })

  const eligibility = (input: string, environment: PartnerEnvironment): Effect.Effect<Eligibility> =>
    Effect.gen(function*() {
      const checkedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
      const details: Array<{ reason: EligibilityReason; message: string }> = []
      const parsed = parseDomainName(input.trim())
      if (Either.isLeft(parsed)) {
        return {
          domain: input.trim().toLowerCase().slice(0, 253),
          eligible: false,
          reasons: ["invalid_domain"],
          details: [{ reason: "invalid_domain", message: parsed.left.message }],
          site: null,
          checked_at: checkedAt
        } satisfies Eligibility
      }
      const name = parsed.right
      if (name.subdomain !== "") {
        details.push({
          reason: "invalid_domain",
          message: `${name.ascii} is not a registrable name (try ${name.registrable})`
        })
      } else if (!name.knownSuffix) {
        details.push({ reason: "invalid_domain", message: `.${name.suffix} is not a known top-level domain` })
      }
      const reserved = yield* reservedHit(name, environment)
      if (Option.isSome(reserved)) details.push({ reason: "reserved", message: reserved.value })
      const open = yield* repo.openCase(environment, name.ascii)
      if (Option.isSome(open)) {
        details.push({ reason: "already_in_case", message: `${name.ascii} is already in an open brokerage case` })
      }
      // No probe for names that cannot be brokered anyway.
      const finding = details.some((d) => d.reason === "invalid_domain" || d.reason === "reserved")
        ? null
        : yield* site(name.ascii)
      if (finding?.classification === "live") {
        details.push({
          reason: "live_site",
          message: `${name.ascii} serves an active site (${finding.url}, HTTP ${finding.status})`
        })
      }
      const reasons = ELIGIBILITY_REASONS.filter((r) => details.some((d) => d.reason === r))
      return {
        domain: name.ascii,
        eligible: reasons.length === 0,
        reasons,
        details: reasons.map((r) => details.find((d) => d.reason === r)!),
        site: finding ? { classification: finding.classification, url: finding.url, status: finding.status } : null,
        checked_at: checkedAt
      } satisfies Eligibility
    })

  const create = (partner: PartnerIdentity, input: CaseInput) =>
    Effect.gen(function*() {
      const check = yield* eligibility(input.domain, partner.environment)
      if (check.reasons.includes("invalid_domain")) {
        const message = check.details.find((d) => d.reason === "invalid_domain")!.message
        return yield* InvalidBrokerageDomain.of(message)
      }
      const refuse = (reasons: ReadonlyArray<EligibilityReason>, details: Eligibility["details"]) =>
        new DomainNotEligible({
          message: `${check.domain} is not eligible for brokerage: ${reasons.join(", ")}`,
          details: { reasons, details }
        })
      if (!check.eligible) return yield* refuse(check.reasons, check.details)
      const created = yield* sql.withTransaction(Effect.gen(function*() {
        const row = yield* repo.insert({
          id: makeId("brk"),
          partnerId: partner.partnerId,
          credentialId: partner.credentialId,
          environment: partner.environment,
          domain: check.domain,
          tier: input.tier,
          buyerEmail: input.buyer_email,
          budgetCents: input.budget,
          notes: input.notes ?? null
        })
        if (Option.isNone(row)) return Option.none<CaseRow>()
        const eventId = yield* outbox.append({
          partnerId: partner.partnerId,
          environment: partner.environment,
          type: "brokerage.case_updated",
          data: { case: eventCase(row.value), previous_status: null }
        })
        yield* repo.addTimeline({
          caseId: row.value.id,
          status: "open",
          fromStatus: null,
          eventId,
          actor: `partner:${partner.keyId}`
        })
        return row
      })).pipe(Effect.orDie)
      if (Option.isNone(created)) {
        return yield* refuse(["already_in_case"], [{
          reason: "already_in_case",
          message: `${check.domain} is already in an open brokerage case`
        }])
      }
      return caseJson(created.value, progressUrl(created.value.id))
    })

  const loadOwned = (id: string, partner: PartnerIdentity | undefined, forUpdate: boolean) =>
    Effect.gen(function*() {
      const row = yield* repo.byId(id, { forUpdate })
      if (
        Option.isNone(row) ||
        (partner && (row.value.partner_id !== partner.partnerId || row.value.environment !== partner.environment))
      ) {
        return yield* BrokerageCaseNotFound.of(id)
      }
      return row.value
    })

  /** One move in one transaction: status, timeline, events, and the commission when won. */
  const apply = (id: string, decide: (c: CaseRow) => CaseTransition, options: MoveOptions) =>
    transaction(Effect.gen(function*() {
      const current = yield* loadOwned(id, options.partner, true)
      const t = decide(current)
      if (!t.ok) {
        return yield* (t.kind === "invalid"
          ? new InvalidCaseMove({ message: t.reason })
          : new CaseMoveNotAllowed({ message: t.reason }))
      }
      let deal: Parameters<typeof repo.update>[1]["deal"] = null
      if (t.to === "closed_won") {
        // The reservation rule: a listed name another partner's valid quote holds is not won
        // here (ListingHeld, 409 with held_until); no listing, no hold.
        yield* market.sales.lockForSale(current.environment, current.domain, current.partner_id)
        const m = dealMoney(t.priceCents!, settings.feeBps, settings.partnerShareBps)
        const order = yield* orders.insertBrokerageOrder({
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
        yield* books.recordSale(order)
        yield* orders.addTimeline({
          orderId: order.id,
          kind: "status",
          status: "TRANSFER_COMPLETED",
          actor: options.actor,
          note:
            `brokerage fee of case ${current.id} (deal ${m.dealPriceCents} cents at ${m.feeBps} bps; partner share ${m.partnerShareBps} bps)`
        })
        deal = {
          priceCents: m.dealPriceCents,
          feeBps: m.feeBps,
          feeCents: m.feeCents,
          shareBps: m.partnerShareBps,
          shareCents: m.partnerShareCents,
          orderId: order.id
        }
      }
      const updated = yield* repo.update(current.id, {
        status: t.to,
        agreedPriceCents: t.to === "deal_agreed" && t.priceCents !== null ? t.priceCents : undefined,
        deal,
        closed: !isOpen(t.to)
      })
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
        const eventId = yield* outbox.append({
          partnerId: updated.partner_id,
          environment: updated.environment,
          type,
          data
        })
        if (type === "brokerage.case_updated") updatedEvent = eventId
      }
      yield* repo.addTimeline({
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

  const move = (id: string, action: CaseAction, options: MoveOptions) =>
    apply(
      id,
      (c) => transition({ status: c.status, agreedPriceCents: c.agreed_price_cents }, action, options.priceCents),
      options
    )

  const detail = (id: string, partner?: PartnerIdentity) =>
    Effect.gen(function*() {
      const c = yield* loadOwned(id, partner, false)
      const timeline = yield* repo.timeline(c.id)
      return { ...caseJson(c, progressUrl(c.id)), timeline: timeline.map(timelineJson) }
    })

  /**
   * Sandbox: the next step of the walk (at deal_agreed the case closes won at the agreed price or
   * the budget); once won, one more call settles the commission (as the order sandbox advance does).
   */
  const advanceSandbox = (id: string, partner: PartnerIdentity) =>
    Effect.gen(function*() {
      if (partner.environment !== "sandbox") {
        return yield* SandboxOnly.of()
      }
      const c = yield* loadOwned(id, partner, false)
      if (c.status === "closed_won" && c.order_id !== null) {
        const order = yield* orders.orderById(c.order_id).pipe(Effect.orDie)
        if (Option.isSome(order) && order.value.status === "TRANSFER_COMPLETED") {
          yield* settlement.settleOrderById(c.order_id, `sandbox:${partner.keyId}`)
          return yield* detail(id, partner)
        }
        return yield* new CaseMoveNotAllowed({
          message: `Case ${id} is closed_won and its commission is settled: there is no next step`
        })
      }
      yield* apply(
        id,
        (row) =>
          sandboxStep({ status: row.status, agreedPriceCents: row.agreed_price_cents, budgetCents: row.budget_cents }),
        { actor: `sandbox:${partner.keyId}`, partner }
      )
      return yield* detail(id, partner)
    })

  const list = (filters: CaseFilters, beforeId: string | null, limit: number) =>
    Effect.map(repo.list(filters, beforeId, limit + 1), (rows) => ({
      cases: rows.slice(0, limit).map((c) => caseJson(c, progressUrl(c.id))),
      hasMore: rows.length > limit
    }))

  /** The buyer's view behind a progress link: None for a tampered or unknown token. */
  const progress = (token: string) =>
    Effect.gen(function*() {
      const payload = secrets.verify<{ c: string }>(PROGRESS_PURPOSE, token)
      if (Option.isNone(payload) || typeof payload.value.c !== "string") return Option.none()
      const c = yield* repo.byId(payload.value.c)
      if (Option.isNone(c)) return Option.none()
      const timeline = yield* repo.timeline(c.value.id)
      return Option.some({ case: c.value, timeline })
    })

  return {
    eligibility,
    create,
    move,
    detail,
    list,
    advanceSandbox,
    progress,
    progressUrl,
    /** For tests and operators: forget cached live-site findings. */
    clearSiteCache: Effect.sync(() => siteCache.clear())
  }
})

/** Needs `Settlement` (the sandbox walk settles a won case's commission), which src/partner/Layer.ts provides. */
export class Brokerage extends Context.Tag("app/Brokerage")<Brokerage, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Brokerage, make).pipe(
    Layer.provide(Layer.mergeAll(BrokerageRepo.Live, OrderRepo.Live, Outbox.Live, Books.Live))
  )
}

export type { CaseStatus }
