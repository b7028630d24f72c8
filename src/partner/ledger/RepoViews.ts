/**
 * SQL of the money a partner and the operator read: statements (newest first) and their lines,
 * the sales history (the orders' sales, through the `OrderFigures` port, under their postings'
 * ids) with totals over the whole filter, payouts and their total. Every partner read is keyed by partner AND environment.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { Context } from "effect"
import { Effect, Schema } from "effect"
import type { OrderFigures } from "./OrderFigures.js"
import {
  LineRow,
  Owner,
  Page,
  PayoutRow,
  PayoutSource,
  StatementRow,
  Total,
  type TransactionFilters,
  type TransactionRow
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

/** The ledger's recorded sales among these natural keys (`order:<id>:recorded`): a transaction row's id. */
export const recordedQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: Schema.Struct({ id: Schema.String, natural_key: Schema.String }),
    execute: (keys) => sql`select id, natural_key from ledger_transactions where natural_key in ${sql.in(keys)}`
  })

const payoutsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Struct({
      owner: Schema.NullOr(Owner),
      sources: Schema.NullOr(Schema.Array(PayoutSource)),
      ...Page
    }),
    Result: PayoutRow,
    execute: ({ beforeId, limit, owner, sources }) =>
      sql`
        select * from partner_payouts
        where true
          ${owned(sql, owner)}
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
export const viewQueries = (sql: SqlClient.SqlClient, orders: Context.Tag.Service<typeof OrderFigures>) => {
  const statements = statementsQuery(sql)
  const statement = statementQuery(sql)
  const lines = linesQuery(sql)
  const recorded = recordedQuery(sql)
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
    /**
     * The sales history, newest first: the orders' sales (the orders slice's), each under the id of
     * its recorded posting (the order's id before it is posted).
     */
    transactions: (owner: Owner, filters: TransactionFilters, beforeId: string | null, limit: number) =>
      Effect.gen(function*() {
        const sales = yield* orders.sales(owner, filters, beforeId, limit)
        if (sales.length === 0) return []
        const key = (orderId: string) => `order:${orderId}:recorded`
        const posted = new Map((yield* recorded(sales.map((s) => key(s.order_id)))).map((t) => [t.natural_key, t.id]))
        return sales.map((s): TransactionRow => ({ id: posted.get(key(s.order_id)) ?? s.order_id, ...s }))
      }).pipe(Effect.orDie),
    transactionTotals: orders.salesTotals,
    /** Newest first, of one partner and environment (null: every partner's, the operators' history). */
    payouts: (
      owner: Owner | null,
      sources: ReadonlyArray<typeof PayoutSource.Type> | null,
      beforeId: string | null,
      limit: number
    ) => Effect.orDie(payouts({ owner, sources, beforeId, limit })),
    totalPaid: (owner: Owner, sources: ReadonlyArray<typeof PayoutSource.Type> | null) =>
      Effect.orDie(Effect.map(totalPaid({ owner, sources }), (r) => r.total))
  }
}
