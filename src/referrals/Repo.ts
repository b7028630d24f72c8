/**
 * SQL of the referral tables (links, clicks, visitors, salts, checkouts, the daily roll-up). The
 * referral orders are the orders slice's (read through `Orders`), the commission postings the
 * ledger's (`LedgerReads`). Every partner read is keyed by partner AND environment.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { LINK_KINDS, PRODUCTS } from "../domain/Referral.js"
import type { PartnerEnvironment } from "../partner/Auth.js"
import { bulkInsertText } from "../platform/db/BulkInsert.js"
import { transactionOf } from "../platform/db/SqlTransaction.js"
import type { Visit } from "./Visitors.js"

const Environment = Schema.Literal("live", "sandbox")

export const LinkRow = Schema.Struct({
  id: Schema.String,
  code: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  kind: Schema.Literal(...LINK_KINDS),
  domain: Schema.NullOr(Schema.String),
  product: Schema.NullOr(Schema.Literal(...PRODUCTS)),
  campaign: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf
})
export type LinkRow = typeof LinkRow.Type

/** Sums over the roll-up (int8/numeric, decoded to numbers by the driver; 0 without rows). */
const LinkStatsRow = Schema.Struct({
  ...LinkRow.fields,
  clicks: Schema.Number,
  unique_clicks: Schema.Number,
  sales: Schema.Number,
  gmv_cents: Schema.Number,
  commission_cents: Schema.Number
})
export type LinkStatsRow = typeof LinkStatsRow.Type

/** A click as the batch writes it (one jsonb parameter, platform/db/BulkInsert.ts). */
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

export const DailyRow = Schema.Struct({
  day: Schema.String,
  clicks: Schema.Number,
  unique_clicks: Schema.Number,
  checkouts_started: Schema.Number,
  sales: Schema.Number,
  gmv_cents: Schema.Number,
  commission_cents: Schema.Number
})
export type DailyRow = typeof DailyRow.Type

export interface Owner {
  readonly partnerId: string
  readonly environment: PartnerEnvironment
}

const OwnerSchema = Schema.Struct({ partnerId: Schema.String, environment: Environment })
const Page = Schema.Struct({ owner: OwnerSchema, beforeId: Schema.NullOr(Schema.String), limit: Schema.Number })
const NewLink = LinkRow.omit("created_at")
const CheckoutStarted = Schema.Struct({
  sessionId: Schema.String,
  linkId: Schema.String,
  partnerId: Schema.String,
  environment: Environment,
  clickId: Schema.String,
  visitor: Schema.String,
  domain: Schema.String,
  at: Schema.DateFromSelf
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const transaction = transactionOf(sql)

  const insertLink = SqlSchema.single({
    Request: NewLink,
    Result: LinkRow,
    execute: (l) => sql`insert into referral_links ${sql.insert({ ...l })} returning *`
  })
  const linkByCode = SqlSchema.findOne({
    Request: Schema.String,
    Result: LinkRow,
    execute: (code) => sql`select * from referral_links where code = ${code}`
  })
  const linkOwned = SqlSchema.findOne({
    Request: Schema.Struct({ owner: OwnerSchema, id: Schema.String }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ id, owner: o }) =>
      sql`select id from referral_links where id = ${id} and partner_id = ${o.partnerId} and environment = ${o.environment}`
  })
  const listLinks = SqlSchema.findAll({
    Request: Page,
    Result: LinkStatsRow,
    execute: ({ beforeId, limit, owner: o }) =>
      sql`
        select l.*, coalesce(s.clicks, 0) as clicks, coalesce(s.unique_clicks, 0) as unique_clicks, coalesce(s.sales, 0) as sales,
               coalesce(s.gmv_cents, 0) as gmv_cents, coalesce(s.commission_cents, 0) as commission_cents
        from (select * from referral_links where partner_id = ${o.partnerId} and environment = ${o.environment}
              ${beforeId ? sql`and id < ${beforeId}` : sql``} order by id desc limit ${limit}) l
        left join lateral (
          select sum(clicks) as clicks, sum(unique_clicks) as unique_clicks, sum(sales) as sales,
                 sum(gmv_cents) as gmv_cents, sum(commission_cents) as commission_cents
          from referral_daily d where d.link_id = l.id) s on true
        order by l.id desc`
  })
  const saltOf = SqlSchema.single({
    Request: Schema.String,
    Result: Schema.Struct({ salt: Schema.String }),
    execute: (day) => sql`select salt from referral_salts where day = ${day}`
  })
  const visitorsUpsert = SqlSchema.findAll({
    Request: Schema.Struct({ visits: Schema.Array(Schema.Any), repeatMs: Schema.Number }),
    Result: Schema.Struct({ unique_click_id: Schema.String }),
    execute: ({ repeatMs, visits }) =>
      sql`
        insert into referral_visitors ${sql.insert(visits.map((v) => ({ ...v })))}
        on conflict (link_id, visitor) do update set
          unique_at = case when excluded.unique_at > referral_visitors.last_at + ${repeatMs}::float8 * interval '1 millisecond'
                      then excluded.unique_at else referral_visitors.unique_at end,
          unique_click_id = case when excluded.unique_at > referral_visitors.last_at + ${repeatMs}::float8 * interval '1 millisecond'
                            then excluded.unique_click_id else referral_visitors.unique_click_id end,
          last_at = greatest(referral_visitors.last_at, excluded.last_at)
        returning unique_click_id`
  })
  const insertCheckout = SqlSchema.findOne({
    Request: CheckoutStarted,
    Result: Schema.Struct({ session_id: Schema.String }),
    execute: (c) =>
      sql`
        insert into referral_checkouts (session_id, link_id, partner_id, environment, click_id, visitor, domain, started_at)
        values (${c.sessionId}, ${c.linkId}, ${c.partnerId}, ${c.environment}, ${c.clickId}, ${c.visitor}, ${c.domain}, ${c.at})
        on conflict do nothing returning session_id`
  })
  const daily = SqlSchema.findAll({
    Request: Schema.Struct({
      owner: OwnerSchema,
      fromDay: Schema.String,
      toDay: Schema.String,
      linkId: Schema.optional(Schema.String)
    }),
    Result: DailyRow,
    execute: ({ fromDay, linkId, owner: o, toDay }) =>
      sql`
        select to_char(day, 'YYYY-MM-DD') as day, sum(clicks) as clicks, sum(unique_clicks) as unique_clicks,
               sum(checkouts_started) as checkouts_started, sum(sales) as sales, sum(gmv_cents) as gmv_cents,
               sum(commission_cents) as commission_cents
        from referral_daily
        where partner_id = ${o.partnerId} and environment = ${o.environment} and day between ${fromDay}::date and ${toDay}::date
          ${linkId ? sql`and link_id = ${linkId}` : sql``}
        group by day order by day`
  })
  return {
    insertLink: (l: typeof NewLink.Type) => Effect.orDie(insertLink(l)),

    /** The link of a code (a cache miss of the redirect: its one database read). */
    linkByCode: (code: string) => Effect.orDie(linkByCode(code)),

    linkOwned: (o: Owner, id: string) => Effect.orDie(Effect.map(linkOwned({ owner: o, id }), Option.isSome)),

    /** The partner's links, newest first, with lifetime stats from the daily roll-up. */
    listLinks: (o: Owner, beforeId: string | null, limit: number) =>
      Effect.orDie(listLinks({ owner: o, beforeId, limit })),

    /**
     * Today's salt for hashing IPs (created by the first writer of the day). Salts older than
     * yesterday are deleted, and with them the visitors keyed by them (no click can match those).
     */
    saltFor: (day: string, fresh: string) =>
      Effect.gen(function*() {
        yield* sql`insert into referral_salts (day, salt) values (${day}, ${fresh}) on conflict (day) do nothing`
        yield* sql`delete from referral_salts where day < ${day}::date - 1`
        yield* sql`delete from referral_visitors where last_at < (${day}::date - 1)::timestamp at time zone 'UTC'`
        return (yield* saltOf(day)).salt
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
     *
     * The one repository call whose `SqlError` stays an error: the click writer retries the batch
     * with backoff (src/referrals/ClickWriter.ts) rather than lose it.
     */
    writeClicks: (clicks: ReadonlyArray<ClickRow>, visits: ReadonlyArray<Visit>, repeatMs: number) =>
      clicks.length === 0 ? Effect.void : sql.withTransaction(Effect.gen(function*() {
        const won = new Set<string>()
        if (visits.length > 0) {
          const rows = yield* visitorsUpsert({ visits, repeatMs }).pipe(Effect.catchTag("ParseError", Effect.die))
          for (const r of rows) won.add(r.unique_click_id)
        }
        const contested = new Set(visits.map((v) => v.unique_click_id))
        const decided = clicks.map((c) => ({ ...c, is_unique: c.is_unique && (!contested.has(c.id) || won.has(c.id)) }))
        // The clicks travel as one jsonb parameter (platform/db/BulkInsert.ts), not 10 bound values per
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

    /**
     * Records an attributed checkout once per session and once per link, visitor and domain
     * (migration 0240; either unique index makes it a no-op), and rolls it up; false when already
     * recorded.
     */
    checkoutStarted: (c: typeof CheckoutStarted.Type) =>
      transaction(Effect.gen(function*() {
        const inserted = yield* Effect.orDie(insertCheckout(c))
        if (Option.isNone(inserted)) return false
        yield* Effect.orDie(sql`
          insert into referral_daily (link_id, day, partner_id, environment, checkouts_started)
          values (${c.linkId}, ${c.at.toISOString().slice(0, 10)}, ${c.partnerId}, ${c.environment}, 1)
          on conflict (link_id, day) do update set checkouts_started = referral_daily.checkouts_started + 1`)
        return true
      })),

    /** Roll-up per day over a window (UTC days, both included), optionally of one link. */
    daily: (o: Owner, fromDay: string, toDay: string, linkId?: string) =>
      Effect.orDie(daily({ owner: o, fromDay, toDay, ...(linkId ? { linkId } : {}) }))
  }
})

export class ReferralRepo extends Effect.Service<ReferralRepo>()("app/ReferralRepo", { effect: make }) {}
