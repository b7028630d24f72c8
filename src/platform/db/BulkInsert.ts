/**
 * Set-based bulk insert: every row travels as ONE jsonb parameter and the database expands it
 * with `jsonb_to_recordset`, so a batch of any size is one `insert … select` with one bound
 * value (not one VALUES tuple, and one bind parameter per cell, per row). Used where a batch is
 * large (the settlement run writes hundreds of lines, postings and events per statement).
 *
 * `table` and `columns` are code constants (never input): they are spliced into the statement.
 */
import type { SqlClient } from "@effect/sql"

export type ColumnType = "text" | "bigint" | "integer" | "jsonb" | "timestamptz" | "boolean"

/** The text of a bulk insert whose rows are the jsonb parameter `$1` (to compose into a CTE). */
export const bulkInsertText = (
  table: string,
  columns: ReadonlyArray<readonly [name: string, type: ColumnType]>,
  suffix = ""
) => {
  const names = columns.map(([c]) => c).join(", ")
  const defs = columns.map(([c, t]) => `${c} ${t}`).join(", ")
  return `insert into ${table} (${names}) select ${names} from jsonb_to_recordset($1::jsonb) as x(${defs}) ${suffix}`
}

export const bulkInsert = <Row extends object = never>(
  sql: SqlClient.SqlClient,
  table: string,
  columns: ReadonlyArray<readonly [name: string, type: ColumnType]>,
  rows: ReadonlyArray<Record<string, unknown>>,
  suffix = ""
) => sql.unsafe<Row>(bulkInsertText(table, columns, suffix), [JSON.stringify(rows)])
