/**
 * API key pairs for the keyed developer endpoints (/api/v1): issued by the operator CLI, checked
 * by the ApiKeyAuth middleware. Never sees HTTP.
 *
 * - `key` (x-api-key): public identifier, `ak_` + 24 base64url characters.
 * - `secret` (x-api-secret): `sk_` + 43 base64url characters (256 random bits), shown once. Only
 *   its SHA-256 is stored; a fast hash is right for a high-entropy secret and keeps the check
 *   cheap on every request. Comparison is constant-time, and an unknown key costs the same
 *   comparison as a known one.
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { makeId } from "../../platform/Ids.js"
import { randomSecret, safeEqual, sha256Hex } from "../../platform/security/Crypto.js"
import type { ApiKeyIdentity } from "../ApiKeys.js"
import { ApiKeysRepo } from "./Repo.js"

export interface IssuedApiKey {
  readonly id: string
  readonly name: string
  readonly key: string
  /** Shown once; not recoverable. */
  readonly secret: string
  readonly created_at: string
}

export interface ApiKeyInfo {
  readonly id: string
  readonly name: string
  readonly key: string
  readonly created_at: string
  readonly revoked_at: string | null
}

const DUMMY_HASH = sha256Hex("no such key")

const make = Effect.gen(function*() {
  const repo = yield* ApiKeysRepo
  return {
    create: (name: string): Effect.Effect<IssuedApiKey> =>
      Effect.gen(function*() {
        const key = randomSecret("ak_", 18)
        const secret = randomSecret("sk_")
        const row = yield* repo.insert({ id: makeId("key"), key, name, secret_hash: sha256Hex(secret) })
        return { id: row.id, name: row.name, key: row.key, secret, created_at: row.created_at.toISOString() }
      }),

    /** The identity behind a key pair, or undefined (unknown key, wrong secret, revoked). */
    verify: (key: string, secret: string): Effect.Effect<ApiKeyIdentity | undefined> =>
      Effect.gen(function*() {
        const found = key.length > 0 && key.length <= 128 ? yield* repo.byKey(key) : Option.none()
        const row = Option.getOrUndefined(found)
        const matches = safeEqual(sha256Hex(secret), row?.secret_hash ?? DUMMY_HASH)
        if (row === undefined || !matches || row.revoked_at !== null) return undefined
        return { keyId: row.id, name: row.name }
      }),

    list: Effect.map(repo.list, (rows) =>
      rows.map((r): ApiKeyInfo => ({
        id: r.id,
        name: r.name,
        key: r.key,
        created_at: r.created_at.toISOString(),
        revoked_at: r.revoked_at?.toISOString() ?? null
      }))),

    revoke: (key: string) => repo.revoke(key)
  }
})

export class ApiKeyStore extends Effect.Service<ApiKeyStore>()("app/ApiKeyStore", {
  effect: make,
  dependencies: [ApiKeysRepo.Default]
}) {}

/** For fixtures holding only a SqlClient: issue a key pair through the same code. */
export const issueApiKey = (name: string): Effect.Effect<IssuedApiKey, never, SqlClient.SqlClient> =>
  Effect.flatMap(make, (store) => store.create(name)).pipe(Effect.provide(ApiKeysRepo.Default))
