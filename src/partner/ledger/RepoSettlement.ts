/**
 * SQL of the settlement run's writes (Settlement.ts), inside its per-statement transaction: the
 * run, the group's previous statement, the statement and its lines (one set-based insert); the
 * refunds since are the orders slice's (`OrderFigures`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { bulkInsert } from "../../platform/db/BulkInsert.js"
import { Group, LINE_COLUMNS, LineRow, NewRun, NewStatement } from "./RepoRows.js"

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
  const insertStatement = insertStatementQuery(sql)
  return {
    insertRun: (run: typeof NewRun.Type) => Effect.orDie(insertRun(run)),
    finishRun: (id: string, ordersSettled: number, statements: number) =>
      Effect.orDie(finishRun({ id, ordersSettled, statements })),
    /** The end and the writing time of the group's latest statement (null before the first). */
    previousStatement: (g: Group) => Effect.orDie(previousStatement(g)),
    insertStatement: (s: typeof NewStatement.Type) => Effect.orDie(insertStatement(s)),
    /** A statement's lines, one set-based insert whatever their number (typed by the caller, not re-encoded per row). */
    insertLines: (lines: ReadonlyArray<LineRow>) =>
      Effect.orDie(Effect.asVoid(bulkInsert(sql, "settlement_lines", LINE_COLUMNS, lines)))
  }
}
