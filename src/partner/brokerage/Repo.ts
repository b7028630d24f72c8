/**
 * SQL of brokerage cases and their timeline (migrations/0120_brokerage.ts). Rows are decoded by
 * the schemas below (money columns are `bigint`, numbers through the driver's int8 parser on both
 * databases); a database error is a defect here (`Effect.orDie`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { CASE_STATUSES, type CaseStatus, type Tier, TIERS } from "../../domain/Brokerage.js"
import type { PartnerEnvironment } from "../Auth.js"

const Environment = Schema.Literal("live", "sandbox")
const Status = Schema.Literal(...CASE_STATUSES)

export const CaseRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  credential_id: Schema.String,
  environment: Environment,
  domain: Schema.String,
  tier: Schema.Literal(...TIERS),
  status: Status,
  buyer_email: Schema.String,
  budget_cents: Schema.Number,
  notes: Schema.NullOr(Schema.String),
  currency: Schema.String,
  agreed_price_cents: Schema.NullOr(Schema.Number),
  deal_price_cents: Schema.NullOr(Schema.Number),
  fee_bps: Schema.NullOr(Schema.Number),
  fee_cents: Schema.NullOr(Schema.Number),
  partner_share_bps: Schema.NullOr(Schema.Number),
  partner_share_cents: Schema.NullOr(Schema.Number),
  order_id: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  closed_at: Schema.NullOr(Schema.DateFromSelf)
})
export type CaseRow = typeof CaseRow.Type

export const CaseTimelineRow = Schema.Struct({
  seq: Schema.Number,
  status: Status,
  from_status: Schema.NullOr(Status),
  price_cents: Schema.NullOr(Schema.Number),
  event_id: Schema.NullOr(Schema.String),
  actor: Schema.String,
  note: Schema.NullOr(Schema.String),
  at: Schema.DateFromSelf
})
export type CaseTimelineRow = typeof CaseTimelineRow.Type

export interface CaseFilters {
  readonly status?: CaseStatus | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly partnerId?: string | undefined
  readonly environment?: PartnerEnvironment | undefined
}

export interface NewCase {
  readonly id: string
  readonly partnerId: string
  readonly credentialId: string
  readonly environment: PartnerEnvironment
  readonly domain: string
  readonly tier: Tier
  readonly buyerEmail: string
  readonly budgetCents: number
  readonly notes: string | null
}

export interface CaseUpdate {
  readonly status: CaseStatus
  readonly agreedPriceCents?: number | null | undefined
  readonly deal?:
    | {
      readonly priceCents: number
      readonly feeBps: number
      readonly feeCents: number
      readonly shareBps: number
      readonly shareCents: number
      readonly orderId: string
    }
    | null
    | undefined
  readonly closed: boolean
}

export interface NewTimelineEntry {
  readonly caseId: string
  readonly status: CaseStatus
  readonly fromStatus: CaseStatus | null
  readonly priceCents?: number | null | undefined
  readonly eventId: string | null
  readonly actor: string
  readonly note?: string | null | undefined
}

const OPEN_SQL = "('open', 'researching', 'contacting_owner', 'negotiating', 'deal_agreed')"

/** Requests whose shape the repository's callers already typed: passed through as they are. */
const Passed = <A>() => Schema.Any as Schema.Schema<A, A>

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const insert = SqlSchema.findOne({
    Request: Passed<NewCase>(),
    Result: CaseRow,
    execute: (c) =>
      sql`
        insert into brokerage_cases (id, partner_id, credential_id, environment, domain, tier, status, buyer_email, budget_cents, notes)
        values (${c.id}, ${c.partnerId}, ${c.credentialId}, ${c.environment}, ${c.domain}, ${c.tier}, 'open', ${c.buyerEmail},
                ${c.budgetCents}, ${c.notes})
        on conflict (environment, domain) where status in ${sql.literal(OPEN_SQL)} do nothing
        returning *`
  })

  const openCase = SqlSchema.findOne({
    Request: Schema.Struct({ environment: Environment, domain: Schema.String }),
    Result: CaseRow,
    execute: (r) =>
      sql`select * from brokerage_cases where environment = ${r.environment} and domain = ${r.domain}
          and status in ${sql.literal(OPEN_SQL)} limit 1`
  })

  const byId = SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, forUpdate: Schema.Boolean }),
    Result: CaseRow,
    execute: (r) =>
      r.forUpdate
        ? sql`select * from brokerage_cases where id = ${r.id} for update`
        : sql`select * from brokerage_cases where id = ${r.id}`
  })

  const update = SqlSchema.single({
    Request: Passed<CaseUpdate & { readonly id: string }>(),
    Result: CaseRow,
    execute: (u) =>
      sql`
        update brokerage_cases set status = ${u.status}, updated_at = now(),
          agreed_price_cents = ${
        u.agreedPriceCents === undefined ? sql`agreed_price_cents` : sql`${u.agreedPriceCents}`
      },
          ${
        u.deal
          ? sql`deal_price_cents = ${u.deal.priceCents}, fee_bps = ${u.deal.feeBps}, fee_cents = ${u.deal.feeCents},
                   partner_share_bps = ${u.deal.shareBps}, partner_share_cents = ${u.deal.shareCents}, order_id = ${u.deal.orderId},`
          : sql``
      }
          closed_at = ${u.closed ? sql`now()` : sql`closed_at`}
        where id = ${u.id} returning *`
  })

  const addTimeline = SqlSchema.void({
    Request: Passed<NewTimelineEntry>(),
    execute: (t) =>
      sql`insert into brokerage_case_timeline (case_id, status, from_status, price_cents, event_id, actor, note)
          values (${t.caseId}, ${t.status}, ${t.fromStatus}, ${t.priceCents ?? null}, ${t.eventId}, ${t.actor}, ${
        t.note ?? null
      })`
  })

  const timeline = SqlSchema.findAll({
    Request: Schema.String,
    Result: CaseTimelineRow,
    execute: (caseId) =>
      sql`select seq, status, from_status, price_cents, event_id, actor, note, at
          from brokerage_case_timeline where case_id = ${caseId} order by seq`
  })

  const list = SqlSchema.findAll({
    Request: Passed<{ readonly filters: CaseFilters; readonly beforeId: string | null; readonly limit: number }>(),
    Result: CaseRow,
    execute: ({ beforeId, filters: f, limit }) =>
      sql`
        select * from brokerage_cases
        where true
          ${f.partnerId ? sql`and partner_id = ${f.partnerId}` : sql``}
          ${f.environment ? sql`and environment = ${f.environment}` : sql``}
          ${f.status ? sql`and status = ${f.status}` : sql``}
          ${f.from ? sql`and created_at >= ${f.from}` : sql``}
          ${f.to ? sql`and created_at < ${f.to}` : sql``}
          ${beforeId ? sql`and id < ${beforeId}` : sql``}
        order by id desc
        limit ${limit}`
  })

  return {
    /** Inserts an open case; None when another open case holds the domain (the partial unique index). */
    insert: (c: NewCase) => insert(c).pipe(Effect.orDie),

    /** The open case on a domain, if any (any partner). */
    openCase: (environment: PartnerEnvironment, domain: string) => openCase({ environment, domain }).pipe(Effect.orDie),

    byId: (id: string, options?: { readonly forUpdate?: boolean }) =>
      byId({ id, forUpdate: options?.forUpdate === true }).pipe(Effect.orDie),

    update: (id: string, u: CaseUpdate) => update({ ...u, id }).pipe(Effect.orDie),

    addTimeline: (t: NewTimelineEntry) => addTimeline(t).pipe(Effect.orDie),

    timeline: (caseId: string) => timeline(caseId).pipe(Effect.orDie),

    /** Newest first; `beforeId` continues a page. */
    list: (filters: CaseFilters, beforeId: string | null, limit: number) =>
      list({ filters, beforeId, limit }).pipe(Effect.orDie)
  }
})

export class BrokerageRepo extends Effect.Service<BrokerageRepo>()("app/BrokerageRepo", { effect: make }) {}
