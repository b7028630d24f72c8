/**
 * Named operator tokens: one bearer per person for /api/admin, so the audit log names who acted.
 *
 * Contract: a token is `<id>.<secret>` (`opt_…` id, 256-bit secret), shown once at creation; only
 * the secret's SHA-256 is stored and it is compared in constant time (src/platform/security/Crypto.ts). A
 * revoked token is refused like an unknown one. The id part only finds the row: without the
 * secret it proves nothing.
 */
import { Effect, Option } from "effect"
import { makeId } from "../platform/Ids.js"
import { randomSecret, safeEqual, sha256Hex } from "../platform/security/Crypto.js"
import { OperatorTokensRepo, type TokenRow } from "./Repo.js"

const TOKEN = /^(opt_[0-9a-z]{26})\.([A-Za-z0-9_-]{43})$/

export interface OperatorToken {
  readonly id: string
  readonly name: string
  readonly created_at: string
  readonly last_used_at: string | null
  readonly revoked_at: string | null
}

const view = (row: TokenRow): OperatorToken => ({
  id: row.id,
  name: row.name,
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null,
  revoked_at: row.revoked_at?.toISOString() ?? null
})

const make = Effect.gen(function*() {
  const repo = yield* OperatorTokensRepo
  return {
    /** A new token for `name`: the row, and the one time its secret is shown. */
    create: (name: string) =>
      Effect.gen(function*() {
        const id = makeId("opt")
        const secret = randomSecret()
        const row = yield* repo.insert({ id, name, secret_hash: sha256Hex(secret) })
        return { token: view(row), secret: `${id}.${secret}` }
      }),
    list: Effect.map(repo.list, (rows) => rows.map(view)),
    /** The revoked token, or None when no token has that id (revoking twice keeps the first time). */
    revoke: (id: string) => Effect.map(repo.revoke(id), Option.map(view)),
    /** The active token a bearer value names, or None (unknown, wrong secret, revoked). */
    authenticate: (bearer: string) =>
      Effect.gen(function*() {
        const m = TOKEN.exec(bearer)
        if (m === null) return Option.none<OperatorToken>()
        const row = yield* repo.byId(m[1]!)
        // Compared even when the row is missing, so an unknown id costs what a wrong secret does.
        const stored = Option.match(row, { onNone: () => sha256Hex(""), onSome: (r) => r.secret_hash })
        const matches = safeEqual(sha256Hex(m[2]!), stored)
        if (!matches || Option.isNone(row) || row.value.revoked_at !== null) return Option.none<OperatorToken>()
        yield* repo.touch(row.value.id)
        return Option.some(view(row.value))
      })
  }
})

export class OperatorTokens extends Effect.Service<OperatorTokens>()("OperatorTokens", {
  effect: make,
  dependencies: [OperatorTokensRepo.Default]
}) {}
