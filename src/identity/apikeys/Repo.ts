/** SQL for API key pairs (the secret only as its SHA-256). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface ApiKeyRow {
  readonly id: string
  readonly key: string
  readonly name: string
  readonly secret_hash: string
  readonly created_at: Date
  readonly revoked_at: Date | null
}

export const makeApiKeysRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    insert: (row: { id: string; key: string; name: string; secret_hash: string }) =>
      sql<ApiKeyRow>`insert into api_keys ${sql.insert(row)} returning id, key, name, secret_hash, created_at, revoked_at`.pipe(
        Effect.map((rows) => rows[0])
      ),
    byKey: (key: string) =>
      sql<ApiKeyRow>`select id, key, name, secret_hash, created_at, revoked_at from api_keys where key = ${key}`.pipe(Effect.map((rows) => rows[0])),
    list: sql<ApiKeyRow>`select id, key, name, secret_hash, created_at, revoked_at from api_keys order by created_at, id`,
    revoke: (key: string) =>
      sql<{ key: string }>`update api_keys set revoked_at = now() where key = ${key} and revoked_at is null returning key`.pipe(
        Effect.map((rows) => rows.length > 0)
      )
  }
})
