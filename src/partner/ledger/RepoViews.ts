/**
 * SQL of the money a partner and the operator read: statements (newest first) and their lines,
 * the sales history (partner_orders, read-only here) with totals over the whole filter, payouts
 * and their total. Every partner read is keyed by partner AND environment.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import {
  ceilDay,
  floorDay,
  isoDay,
  LineRow,
  Owner,
  Page,
  PayoutRow,
  PayoutSource,
  StatementRow,
  Total,
  Totals,
  TransactionFilters,
  TransactionRow
} from "./RepoRows.js"

const owned = (sql: SqlClient.SqlClient, o: Owner | null) =>
  o ? sql`and partner_id = ${o.partnerId} and environment = ${o.environment}` : sql``

const statementsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Struct({
      owner: Schema.NullOr(Owner),
      from: Schema.optional(Schema.DateFromSelf),
      to: Schema.optional(Schema.DateFromSelf),
      ...Page
    }),
    Result: StatementRow,
    execute: (r) =>
      sql`
        select * from settlement_statements
        where true
          ${owned(sql, r.owner)}
          ${r.from ? sql`and period_end >= ${r.from}` : sql``}
          ${r.to ? sql`and period_end < ${r.to}` : sql``}
          ${r.beforeId ? sql`and id < ${r.beforeId}` : sql``}
        order by id desc limit ${r.limit}`
  })

const statementQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, owner: Schema.NullOr(Owner) }),
    Result: StatementRow,
    execute: (r) => sql`select * from settlement_statements where id = ${r.id} ${owned(sql, r.owner)}`
  })

const linesQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.String,
    Result: LineRow,
    execute: (statementId) => sql`select * from settlement_lines where statement_id = ${statementId} order by order_id`
  })

const transactionsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Struct({ owner: Owner, filters: TransactionFilters, ...Page }),
    Result: TransactionRow,
    execute: ({ beforeId, filters: f, limit, owner: o }) =>
      sql`
        select coalesce(t.id, p.id) as id, p.id as order_id, p.domain, p.payment_model, p.status, p.sale_price_cents,
               p.commission_cents, p.currency, p.created_at, p.settled_at
        from (select * from partner_orders
              where partner_id = ${o.partnerId} and environment = ${o.environment}
                ${f.from ? sql`and created_at >= ${f.from}` : sql``}
                ${f.to ? sql`and created_at < ${f.to}` : sql``}
                ${f.status ? sql`and status = ${f.status}` : sql``}
                ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}
                ${beforeId ? sql`and id < ${beforeId}` : sql``}
              order by id desc limit ${limit}) p
        left join ledger_transactions t on t.natural_key = 'order:' || p.id || ':recorded'
        order by p.id desc`
  })

/**
 * Totals over every row of the filter: whole UTC days from the maintained `partner_order_totals`
 * (migration 0105), the partial first and last day of a `from`/`to` range from the orders.
 */
const transactionTotalsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
    Request: Schema.Struct({ owner: Owner, filters: TransactionFilters }),
    Result: Totals,
    execute: ({ filters: f, owner: o }) => {
      const fromDay = f.from ? ceilDay(f.from) : null
      const toDay = f.to ? floorDay(f.to) : null
      const rest = sql`${f.status ? sql`and status = ${f.status}` : sql``}
        ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}`
      const orders = (from: Date | null, to: Date | null) =>
        sql`select count(*) as count, coalesce(sum(sale_price_cents), 0) as gmv_cents, coalesce(sum(commission_cents), 0) as commission_cents
            from partner_orders where partner_id = ${o.partnerId} and environment = ${o.environment}
            ${from ? sql`and created_at >= ${from}` : sql``} ${to ? sql`and created_at < ${to}` : sql``} ${rest}`
      // A range within less than a day or two: the orders alone.
      if (fromDay && toDay && fromDay.getTime() >= toDay.getTime()) return orders(f.from!, f.to!)
      const parts = [
        sql`select coalesce(sum(count), 0) as count, coalesce(sum(gmv_cents), 0) as gmv_cents, coalesce(sum(commission_cents), 0) as commission_cents
            from partner_order_totals where partner_id = ${o.partnerId} and environment = ${o.environment}
            ${fromDay ? sql`and day >= ${isoDay(fromDay)}::date` : sql``} ${
          toDay ? sql`and day < ${isoDay(toDay)}::date` : sql``
        } ${rest}`,
        ...(f.from && fromDay && fromDay.getTime() > f.from.getTime() ? [orders(f.from, fromDay)] : []),
        ...(f.to && toDay && toDay.getTime() < f.to.getTime() ? [orders(toDay, f.to)] : [])
      ]
      return sql`
        select coalesce(sum(count), 0)::bigint as count, coalesce(sum(gmv_cents), 0)::bigint as gmv_cents,
               coalesce(sum(commission_cents), 0)::bigint as commission_cents
        from (${sql.join(" union all ", false)(parts)}) t`
    }
  })

const payoutsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Struct({ owner: Owner, sources: Schema.NullOr(Schema.Array(PayoutSource)), ...Page }),
    Result: PayoutRow,
    execute: ({ beforeId, limit, owner: o, sources }) =>
      sql`
        select * from partner_payouts
        where partner_id = ${o.partnerId} and environment = ${o.environment}
          ${sources ? sql`and source in ${sql.in(sources)}` : sql``}
          ${beforeId ? sql`and id < ${beforeId}` : sql``}
        order by id desc limit ${limit}`
  })

const totalPaidQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
    Request: Schema.Struct({ owner: Owner, sources: Schema.NullOr(Schema.Array(PayoutSource)) }),
    Result: Total,
    execute: ({ owner: o, sources }) =>
      sql`
        select coalesce(sum(amount_cents), 0)::bigint as total from partner_payouts
        where partner_id = ${o.partnerId} and environment = ${o.environment} and status = 'paid'
          ${sources ? sql`and source in ${sql.in(sources)}` : sql``}`
  })

/** The money views of the repository. */
export const viewQueries = (sql: SqlClient.SqlClient) => {
  const statements = statementsQuery(sql)
  const statement = statementQuery(sql)
  const lines = linesQuery(sql)
  const transactions = transactionsQuery(sql)
  const transactionTotals = transactionTotalsQuery(sql)
  const payouts = payoutsQuery(sql)
  const totalPaid = totalPaidQuery(sql)
  return {
    /** Newest first, of one partner and environment (null: every partner); `beforeId` continues a page. */
    statements: (
      owner: Owner | null,
      window: { readonly from?: Date | undefined; readonly to?: Date | undefined },
      beforeId: string | null,
      limit: number
    ) => Effect.orDie(statements({ owner, from: window.from, to: window.to, beforeId, limit })),
    statement: (id: string, owner: Owner | null) => Effect.orDie(statement({ id, owner })),
    lines: (statementId: string) => Effect.orDie(lines(statementId)),
    transactions: (owner: Owner, filters: TransactionFilters, beforeId: string | null, limit: number) =>
      Effect.orDie(transactions({ owner, filters, beforeId, limit })),
    transactionTotals: (owner: Owner, filters: TransactionFilters) =>
      Effect.orDie(transactionTotals({ owner, filters })),
    payouts: (
      owner: Owner,
      sources: ReadonlyArray<typeof PayoutSource.Type> | null,
      beforeId: string | null,
      limit: number
    ) => Effect.orDie(payouts({ owner, sources, beforeId, limit })),
    totalPaid: (owner: Owner, sources: ReadonlyArray<typeof PayoutSource.Type> | null) =>
      Effect.orDie(Effect.map(totalPaid({ owner, sources }), (r) => r.total))
  }
}
