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
 *
 * This file is the service (its dependencies, creation, the sandbox walk, the reads, its one
 * record of operations); beside it: Eligibility.ts, CaseMoves.ts, CaseJson.ts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Duration, Effect, Option } from "effect"
import { AvailabilityEngine } from "../../availability/Availability.js"
import { type CaseAction, type CaseStatus, sandboxStep, type Tier } from "../../domain/Brokerage.js"
import { LookupConfig } from "../../lookup/Settings.js"
import { Market } from "../../market/Market.js"
import { AppConfig } from "../../platform/Config.js"
import { transactionOf } from "../../platform/db/SqlTransaction.js"
import { makeId } from "../../platform/Ids.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import type { PartnerEnvironment, PartnerIdentity, PartnerOwner } from "../Auth.js"
import { Outbox } from "../events/Outbox.js"
import { Books } from "../ledger/Books.js"
import { Settlement } from "../ledger/Settlement.js"
import { OrderRepo } from "../orders/Repo.js"
import { SandboxOnly } from "../sandbox/Errors.js"
import { caseJson, eventCase, timelineJson } from "./CaseJson.js"
import { apply, loadOwned, move } from "./CaseMoves.js"
import { type Eligibility, eligibility, type EligibilityDeps, type EligibilityReason } from "./Eligibility.js"
import { CaseMoveNotAllowed, DomainNotEligible, InvalidBrokerageDomain } from "./Errors.js"
import { BrokerageRepo, type CaseFilters, type CaseRow } from "./Repo.js"
import { BrokerageConfig } from "./Settings.js"
import { probeOutbound } from "./SiteProbe.js"

export { type CaseJson, caseJson, eventCase, timelineJson } from "./CaseJson.js"
export { type Eligibility, ELIGIBILITY_REASONS, type EligibilityReason } from "./Eligibility.js"

export const PROGRESS_PURPOSE = "brokerage-progress"

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

/** What every brokerage operation works with: its stores, the services it calls, its settings. */
export interface BrokerageDeps extends EligibilityDeps {
  readonly sql: SqlClient.SqlClient
  readonly transaction: ReturnType<typeof transactionOf>
  readonly orders: Context.Tag.Service<typeof OrderRepo>
  readonly market: Context.Tag.Service<typeof Market>
  readonly outbox: Context.Tag.Service<typeof Outbox>
  readonly books: Context.Tag.Service<typeof Books>
  readonly settlement: Context.Tag.Service<typeof Settlement>
  readonly secrets: Context.Tag.Service<typeof ServiceSecret>
  readonly settings: Context.Tag.Service<typeof BrokerageConfig>
  /** The buyer's progress page of a case (a signed link). */
  readonly progressUrl: (caseId: string) => string
}

const create = (d: BrokerageDeps, partner: PartnerIdentity, input: CaseInput) =>
  Effect.gen(function*() {
    const check = yield* eligibility(d, input.domain, partner.environment)
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
    const created = yield* d.sql.withTransaction(Effect.gen(function*() {
      const row = yield* d.repo.insert({
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
      const eventId = yield* d.outbox.append({
        partnerId: partner.partnerId,
        environment: partner.environment,
        type: "brokerage.case_updated",
        data: { case: eventCase(row.value), previous_status: null }
      })
      yield* d.repo.addTimeline({
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
    return caseJson(created.value, d.progressUrl(created.value.id))
  })

const detail = (d: BrokerageDeps, id: string, partner?: PartnerOwner) =>
  Effect.gen(function*() {
    const c = yield* loadOwned(d, id, partner, false)
    const timeline = yield* d.repo.timeline(c.id)
    return { ...caseJson(c, d.progressUrl(c.id)), timeline: timeline.map(timelineJson) }
  })

/**
 * Sandbox: the next step of the walk (at deal_agreed the case closes won at the agreed price or
 * the budget); once won, one more call settles the commission (as the order sandbox advance does).
 */
const advanceSandbox = (d: BrokerageDeps, id: string, partner: PartnerIdentity) =>
  Effect.gen(function*() {
    if (partner.environment !== "sandbox") {
      return yield* SandboxOnly.of()
    }
    const c = yield* loadOwned(d, id, partner, false)
    if (c.status === "closed_won" && c.order_id !== null) {
      const order = yield* d.orders.orderById(c.order_id).pipe(Effect.orDie)
      if (Option.isSome(order) && order.value.status === "TRANSFER_COMPLETED") {
        yield* d.settlement.settleOrderById(c.order_id, `sandbox:${partner.keyId}`)
        return yield* detail(d, id, partner)
      }
      return yield* new CaseMoveNotAllowed({
        message: `Case ${id} is closed_won and its commission is settled: there is no next step`
      })
    }
    yield* apply(
      d,
      id,
      (row) =>
        sandboxStep({ status: row.status, agreedPriceCents: row.agreed_price_cents, budgetCents: row.budget_cents }),
      { actor: `sandbox:${partner.keyId}`, partner }
    )
    return yield* detail(d, id, partner)
  })

const list = (d: BrokerageDeps, filters: CaseFilters, beforeId: string | null, limit: number) =>
  Effect.map(d.repo.list(filters, beforeId, limit + 1), (rows) => ({
    cases: rows.slice(0, limit).map((c) => caseJson(c, d.progressUrl(c.id))),
    hasMore: rows.length > limit
  }))

/** The buyer's view behind a progress link: None for a tampered or unknown token. */
const progress = (d: BrokerageDeps, token: string) =>
  Effect.gen(function*() {
    const payload = d.secrets.verify<{ c: string }>(PROGRESS_PURPOSE, token)
    if (Option.isNone(payload) || typeof payload.value.c !== "string") return Option.none()
    const c = yield* d.repo.byId(payload.value.c)
    if (Option.isNone(c)) return Option.none()
    const timeline = yield* d.repo.timeline(c.value.id)
    return Option.some({ case: c.value, timeline })
  })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  const settings = yield* BrokerageConfig
  const lookupSettings = yield* LookupConfig
  const secrets = yield* ServiceSecret
  const d: BrokerageDeps = {
    sql,
    transaction: transactionOf(sql),
    repo: yield* BrokerageRepo,
    orders: yield* OrderRepo,
    market: yield* Market,
    outbox: yield* Outbox,
    books: yield* Books,
    settlement: yield* Settlement,
    secrets,
    engine: yield* AvailabilityEngine,
    settings,
    outbound: probeOutbound({
      allowLoopback: config.outboundAllowLoopback,
      allowedPorts: config.outboundAllowedPorts,
      dnsResolver: lookupSettings.dnsResolver,
      timeoutMs: Duration.toMillis(settings.siteTimeout)
    }),
    siteTimeout: settings.siteTimeout,
    ttlMs: Duration.toMillis(settings.eligibilityTtl),
    siteCache: new Map(),
    progressUrl: (caseId) => `${config.baseUrl}/brokerage/progress?t=${secrets.sign(PROGRESS_PURPOSE, { c: caseId })}`
  }
  return {
    eligibility: (input: string, environment: PartnerEnvironment): Effect.Effect<Eligibility> =>
      eligibility(d, input, environment),
    create: (partner: PartnerIdentity, input: CaseInput) => create(d, partner, input),
    move: (id: string, action: CaseAction, options: MoveOptions) => move(d, id, action, options),
    detail: (id: string, partner?: PartnerOwner) => detail(d, id, partner),
    list: (filters: CaseFilters, beforeId: string | null, limit: number) => list(d, filters, beforeId, limit),
    advanceSandbox: (id: string, partner: PartnerIdentity) => advanceSandbox(d, id, partner),
    progress: (token: string) => progress(d, token),
    progressUrl: d.progressUrl,
    /** For tests and operators: forget cached live-site findings. */
    clearSiteCache: Effect.sync(() => d.siteCache.clear())
  }
})

/** Needs `Settlement` (the sandbox walk settles a won case's commission), which src/partner/Layer.ts provides. */
export class Brokerage extends Effect.Service<Brokerage>()("app/Brokerage", {
  effect: make,
  dependencies: [BrokerageRepo.Default, OrderRepo.Live, Outbox.Live, Books.Live]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = Brokerage.Default
}

export type { CaseStatus }
