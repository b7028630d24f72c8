/** SQL of the named operator tokens (`operator_tokens`, migration 0361). */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"

export const TokenRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  secret_hash: Schema.String,
  created_at: Schema.DateFromSelf,
  last_used_at: Schema.NullOr(Schema.DateFromSelf),
  revoked_at: Schema.NullOr(Schema.DateFromSelf)
})
export type TokenRow = typeof TokenRow.Type

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.single({
    Request: Schema.Struct({ id: Schema.String, name: Schema.String, secret_hash: Schema.String }),
    Result: TokenRow,
    execute: (row) => sql`insert into operator_tokens ${sql.insert(row)} returning *`
  })
  const byId = SqlSchema.findOne({
    Request: Schema.String,
    Result: TokenRow,
    execute: (id) => sql`select * from operator_tokens where id = ${id}`
  })
  const list = SqlSchema.findAll({
    Request: Schema.Void,
    Result: TokenRow,
    execute: () => sql`select * from operator_tokens order by id desc`
  })
  const revoke = SqlSchema.findOne({
    Request: Schema.String,
    Result: TokenRow,
    execute: (id) =>
      sql`update operator_tokens set revoked_at = coalesce(revoked_at, now()) where id = ${id} returning *`
  })
  const touch = SqlSchema.void({
    Request: Schema.String,
    execute: (id) => sql`update operator_tokens set last_used_at = now() where id = ${id}`
  })
  return {
    insert: (row: { id: string; name: string; secret_hash: string }) => Effect.orDie(insert(row)),
    byId: (id: string) => Effect.orDie(byId(id)),
    list: Effect.orDie(list(undefined)),
    revoke: (id: string) => Effect.orDie(revoke(id)),
    touch: (id: string) => Effect.orDie(touch(id))
  }
})

export class OperatorTokensRepo extends Effect.Service<OperatorTokensRepo>()("OperatorTokensRepo", { effect: make }) {}
