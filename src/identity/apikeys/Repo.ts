/**
 * SQL for API key pairs (the secret only as its SHA-256). Rows are decoded by their schema; a
 * database failure is a defect here, once, so callers see only what the data says.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"

export const ApiKeyRow = Schema.Struct({
  id: Schema.String,
  key: Schema.String,
  name: Schema.String,
  secret_hash: Schema.String,
  created_at: Schema.DateFromSelf,
  revoked_at: Schema.NullOr(Schema.DateFromSelf)
})
export type ApiKeyRow = typeof ApiKeyRow.Type

export const NewApiKey = Schema.Struct({
  id: Schema.String,
  key: Schema.String,
  name: Schema.String,
  secret_hash: Schema.String
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const insert = SqlSchema.single({
    Request: NewApiKey,
    Result: ApiKeyRow,
    execute: (row) =>
      sql`insert into api_keys ${sql.insert(row)} returning id, key, name, secret_hash, created_at, revoked_at`
  })
  const byKey = SqlSchema.findOne({
    Request: Schema.String,
    Result: ApiKeyRow,
    execute: (key) => sql`select id, key, name, secret_hash, created_at, revoked_at from api_keys where key = ${key}`
  })
  const list = SqlSchema.findAll({
    Request: Schema.Void,
    Result: ApiKeyRow,
    execute: () => sql`select id, key, name, secret_hash, created_at, revoked_at from api_keys order by created_at, id`
  })
  const revoke = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ key: Schema.String }),
    execute: (key) =>
      sql`update api_keys set revoked_at = now() where key = ${key} and revoked_at is null returning key`
  })

  return {
    insert: (row: typeof NewApiKey.Type) => Effect.orDie(insert(row)),
    byKey: (key: string) => Effect.orDie(byKey(key)),
    list: Effect.orDie(list(undefined)),
    /** Whether an active key was revoked. */
    revoke: (key: string) => Effect.orDie(Effect.map(revoke(key), Option.isSome))
  }
})

export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("app/ApiKeysRepo", { effect: make }) {}
