/**
 * SQL of the referral tables (links, clicks, salts, checkouts, the daily roll-up), and the
 * read-only queries of referral orders (`partner_orders`) and the partner's commission ledger
 * entries. Every partner read is keyed by partner AND environment.
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { CommissionMovement, LinkKind } from "../domain/Referral.js"
import type { OrderStatus } from "../domain/OrderState.js"
import type { PartnerEnvironment } from "../partner/Auth.js"

export interface LinkRow {
  readonly id: string
  readonly code: string
  readonly partner_id: string
  readonly environment: PartnerEnvironment
  readonly kind: LinkKind
  readonly domain: string | null
  readonly product: string | null
  readonly campaign: string | null
  readonly created_at: Date
}

export interface LinkStatsRow extends LinkRow {
  readonly clicks: number
  readonly unique_clicks: number
  readonly sales: number
  readonly gmv_cents: number
  readonly commission_cents: number
}

export interface ClickRow {
  readonly id: string
  readonly link_id: string
  readonly partner_id: string
  readonly environment: PartnerEnvironment
  readonly clicked_at: Date
  readonly ip_hash: string
  readonly user_agent: string | null
  readonly referrer: string | null
  readonly bot: boolean
  readonly is_unique: boolean
}

export interface DailyRow {
  readonly day: string
  readonly clicks: number
  readonly unique_clicks: number
  readonly checkouts_started: number
  readonly sales: number
  readonly gmv_cents: number
  readonly commission_cents: number
}

export interface SaleRow {
  readonly id: string
  readonly domain: string
  readonly referral_link_id: string | null
  readonly sale_price_cents: number
  readonly commission_cents: number
  readonly status: OrderStatus
  readonly created_at: Date
}

export interface Owner {
  readonly partnerId: string
  readonly environment: PartnerEnvironment
}

export interface SalesFilter {
  readonly from: Date
  readonly to: Date
  readonly linkId?: string | undefined
}

const num = (v: unknown) => Number(v ?? 0)

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const salesWhere = (o: Owner, f: SalesFilter) =>
    sql`partner_id = ${o.partnerId} and environment = ${o.environment} and payment_model = 'referral'
        and created_at >= ${f.from} and created_at < ${f.to}
        ${f.linkId ? sql`and referral_link_id = ${f.linkId}` : sql``}`

  return {
    insertLink: (l: Omit<LinkRow, "created_at">) =>
      sql<LinkRow>`insert into referral_links ${sql.insert({ ...l })} returning *`.pipe(Effect.map((rows) => rows[0]!), Effect.orDie),

    linkByCode: (code: string) =>
      sql<LinkRow>`select * from referral_links where code = ${code}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie),

    linkOwned: (o: Owner, id: string) =>
      sql<{ id: string }>`select id from referral_links where id = ${id} and partner_id = ${o.partnerId} and environment = ${o.environment}`.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie
      ),

    /** The partner's links, newest first, with lifetime stats from the daily roll-up. */
    listLinks: (o: Owner, beforeId: string | null, limit: number) =>
      sql<LinkStatsRow>`
        select l.*, coalesce(s.clicks, 0) as clicks, coalesce(s.unique_clicks, 0) as unique_clicks, coalesce(s.sales, 0) as sales,
               coalesce(s.gmv_cents, 0) as gmv_cents, coalesce(s.commission_cents, 0) as commission_cents
        from (select * from referral_links where partner_id = ${o.partnerId} and environment = ${o.environment}
              ${beforeId ? sql`and id < ${beforeId}` : sql``} order by id desc limit ${limit}) l
        left join lateral (
          select sum(clicks) as clicks, sum(unique_clicks) as unique_clicks, sum(sales) as sales,
                 sum(gmv_cents) as gmv_cents, sum(commission_cents) as commission_cents
          from referral_daily d where d.link_id = l.id) s on true
        order by l.id desc`.pipe(
        Effect.map((rows) =>
          rows.map((r) => ({
            ...r,
            clicks: num(r.clicks),
            unique_clicks: num(r.unique_clicks),
            sales: num(r.sales),
            gmv_cents: num(r.gmv_cents),
            commission_cents: num(r.commission_cents)
          }))
        ),
        Effect.orDie
      ),

    /** Today's salt for hashing IPs (created by the first writer of the day); salts older than yesterday are deleted. */
    saltFor: (day: string, fresh: string) =>
      Effect.gen(function*() {
        yield* sql`insert into referral_salts (day, salt) values (${day}, ${fresh}) on conflict (day) do nothing`
        yield* sql`delete from referral_salts where day < ${day}::date - 1`
        const [row] = yield* sql<{ salt: string }>`select salt from referral_salts where day = ${day}`
        return row!.salt
      }).pipe(Effect.orDie),

    /** One batch of clicks and its roll-up increments, in one transaction. */
    writeClicks: (clicks: ReadonlyArray<ClickRow>) =>
      Effect.gen(function*() {
        if (clicks.length === 0) return
        const daily = new Map<string, { link_id: string; day: string; partner_id: string; environment: string; clicks: number; unique_clicks: number }>()
        for (const c of clicks) {
          const day = c.clicked_at.toISOString().slice(0, 10)
          const key = `${c.link_id}|${day}`
          const d = daily.get(key) ?? { link_id: c.link_id, day, partner_id: c.partner_id, environment: c.environment, clicks: 0, unique_clicks: 0 }
          d.clicks += 1
          if (c.is_unique) d.unique_clicks += 1
          daily.set(key, d)
        }
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`insert into referral_clicks ${sql.insert(clicks.map((c) => ({ ...c })))} on conflict (id) do nothing`
          // Sorted keys: two writers (replicas) never lock the same roll-up rows in opposite orders.
          const rows = [...daily.values()].sort((a, b) => (a.link_id + a.day < b.link_id + b.day ? -1 : 1))
          yield* sql`
            insert into referral_daily ${sql.insert(rows)}
            on conflict (link_id, day) do update set
              clicks = referral_daily.clicks + excluded.clicks,
              unique_clicks = referral_daily.unique_clicks + excluded.unique_clicks`
        }))
      }),

    /** Records an attributed checkout once per session (and rolls it up); false when already recorded. */
    checkoutStarted: (c: { sessionId: string; linkId: string; partnerId: string; environment: PartnerEnvironment; clickId: string; domain: string; at: Date }) =>
      sql.withTransaction(Effect.gen(function*() {
        const inserted = yield* sql`
          insert into referral_checkouts (session_id, link_id, partner_id, environment, click_id, domain, started_at)
          values (${c.sessionId}, ${c.linkId}, ${c.partnerId}, ${c.environment}, ${c.clickId}, ${c.domain}, ${c.at})
          on conflict (session_id) do nothing returning session_id`
        if (inserted.length === 0) return false
        yield* sql`
          insert into referral_daily (link_id, day, partner_id, environment, checkouts_started)
          values (${c.linkId}, ${c.at.toISOString().slice(0, 10)}, ${c.partnerId}, ${c.environment}, 1)
          on conflict (link_id, day) do update set checkouts_started = referral_daily.checkouts_started + 1`
        return true
      })).pipe(Effect.orDie),

    /** Roll-up per day over a window (UTC days, both included), optionally of one link. */
    daily: (o: Owner, fromDay: string, toDay: string, linkId?: string) =>
      sql<DailyRow>`
        select to_char(day, 'YYYY-MM-DD') as day, sum(clicks) as clicks, sum(unique_clicks) as unique_clicks,
               sum(checkouts_started) as checkouts_started, sum(sales) as sales, sum(gmv_cents) as gmv_cents,
               sum(commission_cents) as commission_cents
        from referral_daily
        where partner_id = ${o.partnerId} and environment = ${o.environment} and day between ${fromDay}::date and ${toDay}::date
          ${linkId ? sql`and link_id = ${linkId}` : sql``}
        group by day order by day`.pipe(
        Effect.map((rows) =>
          rows.map((r): DailyRow => ({
            day: r.day,
            clicks: num(r.clicks),
            unique_clicks: num(r.unique_clicks),
            checkouts_started: num(r.checkouts_started),
            sales: num(r.sales),
            gmv_cents: num(r.gmv_cents),
            commission_cents: num(r.commission_cents)
          }))
        ),
        Effect.orDie
      ),

    sales: (o: Owner, f: SalesFilter, beforeId: string | null, limit: number) =>
      sql<SaleRow & { ledger_id: string | null }>`
        select p.id, p.domain, p.referral_link_id, p.sale_price_cents, p.commission_cents, p.status, p.created_at, t.id as ledger_id
        from (select * from partner_orders where ${salesWhere(o, f)} ${beforeId ? sql`and id < ${beforeId}` : sql``}
              order by id desc limit ${limit}) p
        left join ledger_transactions t on t.natural_key = 'order:' || p.id || ':recorded'
        order by p.id desc`.pipe(
        Effect.map((rows) => rows.map((r) => ({ ...r, sale_price_cents: num(r.sale_price_cents), commission_cents: num(r.commission_cents) }))),
        Effect.orDie
      ),

    /** Over every matching sale that stands (refunded and cancelled ones earned nothing). */
    salesTotals: (o: Owner, f: SalesFilter) =>
      sql<{ count: number; gmv_cents: number; commission_cents: number }>`
        select count(*) as count, coalesce(sum(sale_price_cents), 0) as gmv_cents, coalesce(sum(commission_cents), 0) as commission_cents
        from partner_orders where ${salesWhere(o, f)} and status not in ('REFUNDED', 'CANCELLED')`.pipe(
        Effect.map((rows) => ({ count: num(rows[0]?.count), gmv_cents: num(rows[0]?.gmv_cents), commission_cents: num(rows[0]?.commission_cents) })),
        Effect.orDie
      ),

    /** Every ledger transaction of the partner touching a commission account, oldest first. */
    commissionMovements: (o: Owner) =>
      sql<{
        id: string
        seq: string
        kind: CommissionMovement["kind"]
        order_id: string | null
        payout_id: string | null
        created_at: Date
        accrued_delta: string
        payable_delta: string
      }>`
        select t.id, min(e.seq) as seq, t.kind, t.order_id, t.payout_id, t.created_at,
               -sum(case when e.account = 'commission_accrued' then e.amount_cents else 0 end) as accrued_delta,
               -sum(case when e.account = 'commission_payable' then e.amount_cents else 0 end) as payable_delta
        from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
        where e.partner_id = ${o.partnerId} and e.environment = ${o.environment}
          and e.account in ('commission_accrued', 'commission_payable')
        group by t.id, t.kind, t.order_id, t.payout_id, t.created_at
        order by min(e.seq)`.pipe(
        Effect.map((rows) =>
          rows.map((r) => ({
            id: r.id,
            seq: Number(r.seq),
            kind: r.kind,
            orderId: r.order_id,
            payoutId: r.payout_id,
            createdAt: r.created_at,
            accruedDelta: num(r.accrued_delta),
            payableDelta: num(r.payable_delta)
          }))
        ),
        Effect.orDie
      )
  }
})

export class ReferralRepo extends Context.Tag("app/ReferralRepo")<ReferralRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(ReferralRepo, make)
}
