/**
 * SQL of the ledger's reads of the orders (the ledger's `OrderFigures` port,
 * src/partner/ledger/OrderFigures.ts): refunds in a statement's window, payment models settled,
 * the sales history and its totals (whole days from `partner_order_totals`, maintained from the
 * orders by triggers, migration 0105). Inside the caller's transaction; a database error is a
 * defect here (`Effect.orDie`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import {
  ceilDay,
  floorDay,
  Group,
  isoDay,
  Owner,
  Page,
  PaymentModel,
  Total,
  Totals,
  TransactionFilters,
  TransactionRow
} from "../ledger/RepoRows.js"

const OrderSale = TransactionRow.omit("id")

const salesQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Struct({ owner: Owner, filters: TransactionFilters, ...Page }),
    Result: OrderSale,
    execute: ({ beforeId, filters: f, limit, owner: o }) =>
      sql`
        select id as order_id, domain, payment_model, status, sale_price_cents, commission_cents, currency, created_at,
               settled_at
        from partner_orders
        where partner_id = ${o.partnerId} and environment = ${o.environment}
          ${f.from ? sql`and created_at >= ${f.from}` : sql``}
          ${f.to ? sql`and created_at < ${f.to}` : sql``}
          ${f.status ? sql`and status = ${f.status}` : sql``}
          ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}
          ${beforeId ? sql`and id < ${beforeId}` : sql``}
        order by id desc limit ${limit}`
  })

/**
 * Totals over every row of the filter: whole UTC days from the maintained `partner_order_totals`
 * (migration 0105), the partial first and last day of a `from`/`to` range from the orders.
 */
const salesTotalsQuery = (sql: SqlClient.SqlClient) =>
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

const refundsBetweenQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
    Request: Schema.Struct({ group: Group, after: Schema.NullOr(Schema.DateFromSelf), until: Schema.DateFromSelf }),
    Result: Total,
    execute: ({ after, group: g, until }) =>
      sql`select coalesce(sum(r.amount_cents), 0) as total from partner_refunds r join partner_orders o on o.id = r.order_id
          where o.partner_id = ${g.partner_id} and o.environment = ${g.environment} and o.currency = ${g.currency}
            and r.created_at <= ${until} ${after ? sql`and r.created_at > ${after}` : sql``}`
  })

const paymentModelsSettledAfterQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Struct({ group: Group, after: Schema.NullOr(Schema.DateFromSelf) }),
    Result: Schema.Struct({ payment_model: PaymentModel }),
    execute: ({ after, group: g }) =>
      sql`
        select distinct payment_model from partner_orders
        where partner_id = ${g.partner_id} and environment = ${g.environment} and status = 'SETTLED' and payment_model <> 'partner_collected'
          ${after ? sql`and settled_at > ${after}` : sql``}`
  })

/** The ledger's reads of the orders, of the repository. */
export const figureQueries = (sql: SqlClient.SqlClient) => {
  const sales = salesQuery(sql)
  const salesTotals = salesTotalsQuery(sql)
  const refundsBetween = refundsBetweenQuery(sql)
  const paymentModelsSettledAfter = paymentModelsSettledAfterQuery(sql)
  return {
    sales: (owner: Owner, filters: TransactionFilters, beforeId: string | null, limit: number) =>
      Effect.orDie(sales({ owner, filters, beforeId, limit })),
    salesTotals: (owner: Owner, filters: TransactionFilters) => Effect.orDie(salesTotals({ owner, filters })),
    refundsBetween: (group: Group, after: Date | null, until: Date) =>
      Effect.orDie(Effect.map(refundsBetween({ group, after, until }), (r) => r.total)),
    paymentModelsSettledAfter: (group: Group, after: Date | null) =>
      Effect.orDie(Effect.map(paymentModelsSettledAfter({ group, after }), (rows) => rows.map((r) => r.payment_model)))
  }
}
