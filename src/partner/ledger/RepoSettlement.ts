/**
 * SQL of the settlement run's writes (Settlement.ts), inside its per-statement transaction: the
 * run, the group's previous statement and refunds since, the statement and its lines (one
 * set-based insert).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { bulkInsert } from "../../platform/db/BulkInsert.js"
import { Group, LINE_COLUMNS, LineRow, NewRun, NewStatement, Total } from "./RepoRows.js"

const insertRunQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: NewRun,
    execute: (r) => sql`insert into settlement_runs ${sql.insert(r)}`
  })

const finishRunQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, ordersSettled: Schema.Number, statements: Schema.Number }),
    execute: (r) =>
      sql`update settlement_runs set finished_at = now(), orders_settled = ${r.ordersSettled}, statements = ${r.statements}
          where id = ${r.id}`
  })

const PreviousStatement = Schema.Struct({
  end: Schema.NullOr(Schema.DateFromSelf),
  created: Schema.NullOr(Schema.DateFromSelf)
})

const previousStatementQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
    Request: Group,
    Result: PreviousStatement,
    execute: (g) =>
      sql`select max(period_end) as end, max(created_at) as created from settlement_statements
          where partner_id = ${g.partner_id} and environment = ${g.environment} and currency = ${g.currency}`
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

const insertStatementQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: NewStatement,
    execute: (s) => sql`insert into settlement_statements ${sql.insert(s)}`
  })

/** The settlement run's operations of the repository. */
export const settlementQueries = (sql: SqlClient.SqlClient) => {
  const insertRun = insertRunQuery(sql)
  const finishRun = finishRunQuery(sql)
  const previousStatement = previousStatementQuery(sql)
  const refundsBetween = refundsBetweenQuery(sql)
  const insertStatement = insertStatementQuery(sql)
  return {
    insertRun: (run: typeof NewRun.Type) => Effect.orDie(insertRun(run)),
    finishRun: (id: string, ordersSettled: number, statements: number) =>
      Effect.orDie(finishRun({ id, ordersSettled, statements })),
    /** The end and the writing time of the group's latest statement (null before the first). */
    previousStatement: (g: Group) => Effect.orDie(previousStatement(g)),
    /** Refunds of the group's orders recorded in (after, until]. */
    refundsBetween: (group: Group, after: Date | null, until: Date) =>
      Effect.orDie(Effect.map(refundsBetween({ group, after, until }), (r) => r.total)),
    insertStatement: (s: typeof NewStatement.Type) => Effect.orDie(insertStatement(s)),
    /** A statement's lines, one set-based insert whatever their number (typed by the caller, not re-encoded per row). */
    insertLines: (lines: ReadonlyArray<LineRow>) =>
      Effect.orDie(Effect.asVoid(bulkInsert(sql, "settlement_lines", LINE_COLUMNS, lines)))
  }
}
