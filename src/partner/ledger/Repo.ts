/**
 * Reads of the money tables for partners and operators: statements and their lines, the sales
 * history (partner_orders, read-only here) with totals over the whole filter, payouts.
 * Every partner read is keyed by partner AND environment.
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { PaymentModel } from "../../domain/Ledger.js"
import type { OrderStatus } from "../../domain/OrderState.js"
import type { PartnerEnvironment } from "../Auth.js"

export interface StatementRow {
  readonly id: string
  readonly run_id: string
  readonly partner_id: string
  readonly environment: PartnerEnvironment
  readonly currency: string
  readonly period_start: Date
  readonly period_end: Date
  readonly orders_count: number
  readonly gross_sold_cents: number
  readonly commission_retained_cents: number
  readonly amount_owed_cents: number
  readonly commission_payable_cents: number
  readonly refunds_cents: number
  readonly status: "closed" | "paid"
  readonly created_at: Date
}

export interface LineRow {
  readonly order_id: string
  readonly statement_id: string
  readonly domain: string
  readonly payment_model: PaymentModel
  readonly sale_price_cents: number
  readonly commission_cents: number
  readonly owed_cents: number
}

export interface TransactionRow {
  readonly id: string
  readonly order_id: string
  readonly domain: string
  readonly payment_model: PaymentModel
  readonly status: OrderStatus
  readonly sale_price_cents: number
  readonly commission_cents: number
  readonly currency: string
  readonly created_at: Date
  readonly settled_at: Date | null
}

export interface PayoutRow {
  readonly id: string
  readonly partner_id: string
  readonly environment: PartnerEnvironment
  readonly amount_cents: number
  readonly currency: string
  readonly status: "pending" | "paid" | "failed"
  readonly method: string
  readonly source: "checkout" | "referral" | "brokerage" | "mixed"
  readonly provider_ref: string | null
  readonly failure: string | null
  readonly created_at: Date
  readonly paid_at: Date | null
}

export interface TransactionFilters {
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly status?: OrderStatus | undefined
  readonly paymentModel?: PaymentModel | undefined
}

export interface Owner {
  readonly partnerId: string
  readonly environment: PartnerEnvironment
}

const DAY_MS = 86_400_000
const floorDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS)
const ceilDay = (d: Date) => new Date(Math.ceil(d.getTime() / DAY_MS) * DAY_MS)
const isoDay = (d: Date) => d.toISOString().slice(0, 10)

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const txWhere = (o: Owner, f: TransactionFilters) =>
    sql`partner_id = ${o.partnerId} and environment = ${o.environment}
        ${f.from ? sql`and created_at >= ${f.from}` : sql``}
        ${f.to ? sql`and created_at < ${f.to}` : sql``}
        ${f.status ? sql`and status = ${f.status}` : sql``}
        ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}`

  return {
    statements: (o: Owner | null, f: { from?: Date | undefined; to?: Date | undefined }, beforeId: string | null, limit: number) =>
      sql<StatementRow>`
        select * from settlement_statements
        where true
          ${o ? sql`and partner_id = ${o.partnerId} and environment = ${o.environment}` : sql``}
          ${f.from ? sql`and period_end >= ${f.from}` : sql``}
          ${f.to ? sql`and period_end < ${f.to}` : sql``}
          ${beforeId ? sql`and id < ${beforeId}` : sql``}
        order by id desc limit ${limit}`,

    statement: (id: string, o: Owner | null) =>
      sql<StatementRow>`
        select * from settlement_statements where id = ${id}
          ${o ? sql`and partner_id = ${o.partnerId} and environment = ${o.environment}` : sql``}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),

    lines: (statementId: string) => sql<LineRow>`select * from settlement_lines where statement_id = ${statementId} order by order_id`,

    transactions: (o: Owner, f: TransactionFilters, beforeId: string | null, limit: number) =>
      sql<TransactionRow>`
        select coalesce(t.id, p.id) as id, p.id as order_id, p.domain, p.payment_model, p.status, p.sale_price_cents,
               p.commission_cents, p.currency, p.created_at, p.settled_at
        from (select * from partner_orders where ${txWhere(o, f)} ${beforeId ? sql`and id < ${beforeId}` : sql``}
              order by id desc limit ${limit}) p
        left join ledger_transactions t on t.natural_key = 'order:' || p.id || ':recorded'
        order by p.id desc`,

    /**
     * Totals over every row of the filter: whole UTC days from the maintained `partner_order_totals`
     * (migration 0105), the partial first and last day of a `from`/`to` range from the orders.
     */
    transactionTotals: (o: Owner, f: TransactionFilters) => {
      const fromDay = f.from ? ceilDay(f.from) : null
      const toDay = f.to ? floorDay(f.to) : null
      const rest = sql`${f.status ? sql`and status = ${f.status}` : sql``}
        ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}`
      const orders = (from: Date | null, to: Date | null) =>
        sql`select count(*) as count, coalesce(sum(sale_price_cents), 0) as gmv_cents, coalesce(sum(commission_cents), 0) as commission_cents
            from partner_orders where partner_id = ${o.partnerId} and environment = ${o.environment}
            ${from ? sql`and created_at >= ${from}` : sql``} ${to ? sql`and created_at < ${to}` : sql``} ${rest}`
      // A range within less than a day or two: the orders alone.
      if (fromDay && toDay && fromDay.getTime() >= toDay.getTime()) {
        return sql<{ count: number; gmv_cents: number; commission_cents: number }>`${orders(f.from!, f.to!)}`.pipe(Effect.map((rows) => rows[0]!))
      }
      const parts = [
        sql`select coalesce(sum(count), 0) as count, coalesce(sum(gmv_cents), 0) as gmv_cents, coalesce(sum(commission_cents), 0) as commission_cents
            from partner_order_totals where partner_id = ${o.partnerId} and environment = ${o.environment}
            ${fromDay ? sql`and day >= ${isoDay(fromDay)}::date` : sql``} ${toDay ? sql`and day < ${isoDay(toDay)}::date` : sql``} ${rest}`,
        ...(f.from && fromDay && fromDay.getTime() > f.from.getTime() ? [orders(f.from, fromDay)] : []),
        ...(f.to && toDay && toDay.getTime() < f.to.getTime() ? [orders(toDay, f.to)] : [])
      ]
      return sql<{ count: number; gmv_cents: number; commission_cents: number }>`
        select coalesce(sum(count), 0)::bigint as count, coalesce(sum(gmv_cents), 0)::bigint as gmv_cents,
               coalesce(sum(commission_cents), 0)::bigint as commission_cents
        from (${sql.join(" union all ", false)(parts)}) t`.pipe(Effect.map((rows) => rows[0]!))
    },

    payouts: (o: Owner, sources: ReadonlyArray<string> | null, beforeId: string | null, limit: number) =>
      sql<PayoutRow>`
        select * from partner_payouts
        where partner_id = ${o.partnerId} and environment = ${o.environment}
          ${sources ? sql`and source in ${sql.in(sources)}` : sql``}
          ${beforeId ? sql`and id < ${beforeId}` : sql``}
        order by id desc limit ${limit}`,

    totalPaid: (o: Owner, sources: ReadonlyArray<string> | null) =>
      sql<{ total: number }>`
        select coalesce(sum(amount_cents), 0)::bigint as total from partner_payouts
        where partner_id = ${o.partnerId} and environment = ${o.environment} and status = 'paid'
          ${sources ? sql`and source in ${sql.in(sources)}` : sql``}`.pipe(Effect.map((rows) => Number(rows[0]?.total ?? 0)))
  }
})

export class MoneyRepo extends Context.Tag("app/MoneyRepo")<MoneyRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(MoneyRepo, make)
}
