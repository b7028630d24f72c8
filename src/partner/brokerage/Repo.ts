/** SQL of brokerage cases and their timeline (migrations/0120_brokerage.ts). */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { CaseStatus, Tier } from "../../domain/Brokerage.js"
import type { PartnerEnvironment } from "../Auth.js"

export interface CaseRow {
  readonly id: string
  readonly partner_id: string
  readonly credential_id: string
  readonly environment: PartnerEnvironment
  readonly domain: string
  readonly tier: Tier
  readonly status: CaseStatus
  readonly buyer_email: string
  readonly budget_cents: number
  readonly notes: string | null
  readonly currency: string
  readonly agreed_price_cents: number | null
  readonly deal_price_cents: number | null
  readonly fee_bps: number | null
  readonly fee_cents: number | null
  readonly partner_share_bps: number | null
  readonly partner_share_cents: number | null
  readonly order_id: string | null
  readonly created_at: Date
  readonly updated_at: Date
  readonly closed_at: Date | null
}

export interface CaseTimelineRow {
  readonly seq: number
  readonly status: CaseStatus
  readonly from_status: CaseStatus | null
  readonly price_cents: number | null
  readonly event_id: string | null
  readonly actor: string
  readonly note: string | null
  readonly at: Date
}

export interface CaseFilters {
  readonly status?: CaseStatus | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly partnerId?: string | undefined
  readonly environment?: PartnerEnvironment | undefined
}

const OPEN_SQL = "('open', 'researching', 'contacting_owner', 'negotiating', 'deal_agreed')"

/** pg gives bigint as text: money columns become numbers here, once. */
const decode = (r: CaseRow): CaseRow => ({
  ...r,
  budget_cents: Number(r.budget_cents),
  agreed_price_cents: r.agreed_price_cents === null ? null : Number(r.agreed_price_cents),
  deal_price_cents: r.deal_price_cents === null ? null : Number(r.deal_price_cents),
  fee_cents: r.fee_cents === null ? null : Number(r.fee_cents),
  partner_share_cents: r.partner_share_cents === null ? null : Number(r.partner_share_cents)
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const one = (rows: ReadonlyArray<CaseRow>) => Option.map(Option.fromNullable(rows[0]), decode)

  return {
    /** Inserts an open case; None when another open case holds the domain (the partial unique index). */
    insert: (c: {
      id: string
      partnerId: string
      credentialId: string
      environment: PartnerEnvironment
      domain: string
      tier: Tier
      buyerEmail: string
      budgetCents: number
      notes: string | null
    }) =>
      sql<CaseRow>`
        insert into brokerage_cases (id, partner_id, credential_id, environment, domain, tier, status, buyer_email, budget_cents, notes)
        values (${c.id}, ${c.partnerId}, ${c.credentialId}, ${c.environment}, ${c.domain}, ${c.tier}, 'open', ${c.buyerEmail},
                ${c.budgetCents}, ${c.notes})
        on conflict (environment, domain) where status in ${sql.literal(OPEN_SQL)} do nothing
        returning *`.pipe(Effect.map(one), Effect.orDie),

    /** The open case on a domain, if any (any partner). */
    openCase: (environment: PartnerEnvironment, domain: string) =>
      sql<CaseRow>`select * from brokerage_cases where environment = ${environment} and domain = ${domain}
                   and status in ${sql.literal(OPEN_SQL)} limit 1`.pipe(Effect.map(one), Effect.orDie),

    byId: (id: string, options?: { readonly forUpdate?: boolean }) =>
      (options?.forUpdate
        ? sql<CaseRow>`select * from brokerage_cases where id = ${id} for update`
        : sql<CaseRow>`select * from brokerage_cases where id = ${id}`).pipe(Effect.map(one), Effect.orDie),

    update: (id: string, u: {
      status: CaseStatus
      agreedPriceCents?: number | null
      deal?: { priceCents: number; feeBps: number; feeCents: number; shareBps: number; shareCents: number; orderId: string } | null
      closed: boolean
    }) =>
      sql<CaseRow>`
        update brokerage_cases set status = ${u.status}, updated_at = now(),
          agreed_price_cents = ${u.agreedPriceCents === undefined ? sql`agreed_price_cents` : sql`${u.agreedPriceCents}`},
          ${
        u.deal
          ? sql`deal_price_cents = ${u.deal.priceCents}, fee_bps = ${u.deal.feeBps}, fee_cents = ${u.deal.feeCents},
                   partner_share_bps = ${u.deal.shareBps}, partner_share_cents = ${u.deal.shareCents}, order_id = ${u.deal.orderId},`
          : sql``
      }
          closed_at = ${u.closed ? sql`now()` : sql`closed_at`}
        where id = ${id} returning *`.pipe(Effect.map((rows) => decode(rows[0]!)), Effect.orDie),

    addTimeline: (t: {
      caseId: string
      status: CaseStatus
      fromStatus: CaseStatus | null
      priceCents?: number | null
      eventId: string | null
      actor: string
      note?: string | null
    }) =>
      sql`insert into brokerage_case_timeline (case_id, status, from_status, price_cents, event_id, actor, note)
          values (${t.caseId}, ${t.status}, ${t.fromStatus}, ${t.priceCents ?? null}, ${t.eventId}, ${t.actor}, ${t.note ?? null})`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),

    timeline: (caseId: string) =>
      sql<CaseTimelineRow>`select seq, status, from_status, price_cents, event_id, actor, note, at
                           from brokerage_case_timeline where case_id = ${caseId} order by seq`.pipe(
        Effect.map((rows) => rows.map((r) => ({ ...r, price_cents: r.price_cents === null ? null : Number(r.price_cents) }))),
        Effect.orDie
      ),

    /** Newest first; `beforeId` continues a page. */
    list: (f: CaseFilters, beforeId: string | null, limit: number) =>
      sql<CaseRow>`
        select * from brokerage_cases
        where true
          ${f.partnerId ? sql`and partner_id = ${f.partnerId}` : sql``}
          ${f.environment ? sql`and environment = ${f.environment}` : sql``}
          ${f.status ? sql`and status = ${f.status}` : sql``}
          ${f.from ? sql`and created_at >= ${f.from}` : sql``}
          ${f.to ? sql`and created_at < ${f.to}` : sql``}
          ${beforeId ? sql`and id < ${beforeId}` : sql``}
        order by id desc
        limit ${limit}`.pipe(Effect.map((rows) => rows.map(decode)), Effect.orDie)
  }
})

export class BrokerageRepo extends Context.Tag("app/BrokerageRepo")<BrokerageRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(BrokerageRepo, make)
}
