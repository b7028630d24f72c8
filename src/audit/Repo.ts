/** SQL of the audit log (`audit_log`, migration 0360: append-only, a trigger refuses UPDATE/DELETE). */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"

export const AuditRow = Schema.Struct({
  id: Schema.String,
  at: Schema.DateFromSelf,
  actor: Schema.String,
  action: Schema.String,
  target: Schema.NullOr(Schema.String),
  before: Schema.Unknown,
  after: Schema.Unknown,
  ip: Schema.NullOr(Schema.String)
})
export type AuditRow = typeof AuditRow.Type

const NewRow = Schema.Struct({
  id: Schema.String,
  actor: Schema.String,
  action: Schema.String,
  target: Schema.NullOr(Schema.String),
  /** JSON text, or null for "nothing" (SQL NULL, not the JSON `null`). */
  before: Schema.NullOr(Schema.String),
  after: Schema.NullOr(Schema.String),
  ip: Schema.NullOr(Schema.String)
})

export interface AuditFilter {
  readonly actor?: string | undefined
  readonly action?: string | undefined
  readonly since?: Date | undefined
  /** Rows older than this id (the page cursor's position). */
  readonly beforeId?: string | null | undefined
  readonly limit: number
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.single({
    Request: NewRow,
    Result: AuditRow,
    execute: (r) =>
      sql`insert into audit_log (id, actor, action, target, before, after, ip)
          values (${r.id}, ${r.actor}, ${r.action}, ${r.target}, ${r.before}::jsonb, ${r.after}::jsonb, ${r.ip})
          returning *`
  })
  const list = (f: AuditFilter) =>
    SqlSchema.findAll({
      Request: Schema.Void,
      Result: AuditRow,
      execute: () =>
        sql`select * from audit_log where ${
          sql.and([
            ...(f.actor === undefined ? [] : [sql`actor = ${f.actor}`]),
            ...(f.action === undefined ? [] : [sql`action = ${f.action}`]),
            ...(f.since === undefined ? [] : [sql`at >= ${f.since}`]),
            ...(f.beforeId == null ? [] : [sql`id < ${f.beforeId}`])
          ])
        } order by id desc limit ${f.limit}`
    })(undefined)
  return {
    insert: (row: typeof NewRow.Type) => Effect.orDie(insert(row)),
    list: (filter: AuditFilter) => Effect.orDie(list(filter))
  }
})

export class AuditRepo extends Effect.Service<AuditRepo>()("AuditRepo", { effect: make }) {}
