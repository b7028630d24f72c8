/**
 * SQL of the referral tables (links, clicks, visitors, salts, checkouts, the daily roll-up), and the
 * read-only queries of referral orders (`partner_orders`) and the partner's commission ledger
 * entries. Every partner read is keyed by partner AND environment.
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { CommissionMovement, LinkKind } from "../domain/Referral.js"
import type { OrderStatus } from "../domain/OrderState.js"
import type { PartnerEnvironment } from "../partner/Auth.js"
import { bulkInsertText } from "../platform/BulkInsert.js"
import type { Visit } from "./Visitors.js"

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

const CLICK_COLUMNS = [
  ["id", "text"],
  ["link_id", "text"],
  ["partner_id", "text"],
  ["environment", "text"],
  ["clicked_at", "timestamptz"],
  ["ip_hash", "text"],
  ["user_agent", "text"],
  ["referrer", "text"],
  ["bot", "boolean"],
  ["is_unique", "boolean"]
] as const

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

    /**
     * Today's salt for hashing IPs (created by the first writer of the day). Salts older than
     * yesterday are deleted, and with them the visitors keyed by them (no click can match those).
     */
    saltFor: (day: string, fresh: string) =>
      Effect.gen(function*() {
        yield* sql`insert into referral_salts (day, salt) values (${day}, ${fresh}) on conflict (day) do nothing`
        yield* sql`delete from referral_salts where day < ${day}::date - 1`
        yield* sql`delete from referral_visitors where last_at < (${day}::date - 1)::timestamp at time zone 'UTC'`
        const [row] = yield* sql<{ salt: string }>`select salt from referral_salts where day = ${day}`
        return row!.salt
      }).pipe(Effect.orDie),

    /**
     * One batch of clicks, their uniqueness and their roll-up increments, in one transaction.
     *
     * `visits` (src/referrals/Visitors.ts) hold each visitor's first click of the batch on a link;
     * the upsert counts it unique iff the visitor's last stored click on the link is older than
     * `repeatMs`, and moves the last click forward either way. It is one statement on a primary
     * key: a replica flushing the same visitor at the same moment waits for this transaction and
     * then sees its click (no read-then-write, so no two replicas both count one visitor).
     * The roll-up adds only the clicks actually inserted, so a batch written again after a lost
     * commit reply counts nothing twice.
     */
    writeClicks: (clicks: ReadonlyArray<ClickRow>, visits: ReadonlyArray<Visit>, repeatMs: number) =>
      clicks.length === 0 ? Effect.void : sql.withTransaction(Effect.gen(function*() {
        const won = new Set<string>()
        if (visits.length > 0) {
          const rows = yield* sql<{ unique_click_id: string }>`
            insert into referral_visitors ${sql.insert(visits.map((v) => ({ ...v })))}
            on conflict (link_id, visitor) do update set
              unique_at = case when excluded.unique_at > referral_visitors.last_at + ${repeatMs}::float8 * interval '1 millisecond'
                          then excluded.unique_at else referral_visitors.unique_at end,
              unique_click_id = case when excluded.unique_at > referral_visitors.last_at + ${repeatMs}::float8 * interval '1 millisecond'
                                then excluded.unique_click_id else referral_visitors.unique_click_id end,
              last_at = greatest(referral_visitors.last_at, excluded.last_at)
            returning unique_click_id`
          for (const r of rows) won.add(r.unique_click_id)
        }
        const contested = new Set(visits.map((v) => v.unique_click_id))
        const decided = clicks.map((c) => ({ ...c, is_unique: c.is_unique && (!contested.has(c.id) || won.has(c.id)) }))
        // The clicks travel as one jsonb parameter (platform/BulkInsert.ts), not 10 bound values per
        // click: one cheap statement to parse whatever the batch (bench/referrals.ts), and no
        // 65,535-parameter ceiling. Roll-up rows in (link, day) order: two writers never lock them
        // in opposite orders.
        yield* sql.unsafe(
          `with inserted as (
            ${bulkInsertText("referral_clicks", CLICK_COLUMNS, "on conflict (id) do nothing")}
            returning link_id, partner_id, environment, clicked_at, is_unique)
          insert into referral_daily (link_id, day, partner_id, environment, clicks, unique_clicks)
          select link_id, (clicked_at at time zone 'UTC')::date, partner_id, environment, count(*), count(*) filter (where is_unique)
          from inserted group by 1, 2, 3, 4 order by 1, 2
          on conflict (link_id, day) do update set
            clicks = referral_daily.clicks + excluded.clicks,
            unique_clicks = referral_daily.unique_clicks + excluded.unique_clicks`,
          [JSON.stringify(decided)]
        )
      })),

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
