/** SQL for the OAuth authorization server: clients, grants, codes, tokens (hashes only). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface ClientRow {
  readonly client_id: string
  readonly client_name: string | null
  readonly redirect_uris: ReadonlyArray<string>
  readonly metadata: Record<string, unknown>
  readonly created_at: Date
}

export interface CodeRow {
  readonly code_hash: string
  readonly grant_id: string
  readonly redirect_uri: string
  readonly code_challenge: string
  readonly expires_at: Date
  readonly used_at: Date | null
  readonly client_id: string
  readonly user_id: string
  readonly scope: string
  readonly resource: string | null
  readonly grant_revoked_at: Date | null
}

export interface TokenRow {
  readonly token_hash: string
  readonly kind: "access" | "refresh"
  readonly grant_id: string
  readonly scope: string
  readonly resource: string | null
  readonly created_at: Date
  readonly expires_at: Date
  readonly used_at: Date | null
  readonly revoked_at: Date | null
  readonly client_id: string
  readonly user_id: string
  readonly grant_revoked_at: Date | null
}

const parseJson = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A

export const makeOAuthRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const decodeClient = (row: any): ClientRow => ({
    ...row,
    redirect_uris: parseJson<ReadonlyArray<string>>(row.redirect_uris),
    metadata: parseJson<Record<string, unknown>>(row.metadata)
  })

  return {
    sql,
    insertClient: (row: { client_id: string; client_name: string | null; redirect_uris: ReadonlyArray<string>; metadata: Record<string, unknown> }) =>
      sql<any>`
        insert into oauth_clients (client_id, client_name, redirect_uris, metadata)
        values (${row.client_id}, ${row.client_name}, ${JSON.stringify(row.redirect_uris)}::jsonb, ${JSON.stringify(row.metadata)}::jsonb)
        returning client_id, client_name, redirect_uris, metadata, created_at`.pipe(Effect.map((rows) => decodeClient(rows[0]))),

    clientById: (clientId: string) =>
      sql<any>`select client_id, client_name, redirect_uris, metadata, created_at from oauth_clients where client_id = ${clientId}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : decodeClient(rows[0])))
      ),

    insertGrant: (row: { id: string; client_id: string; user_id: string; scope: string; resource: string | null }) =>
      sql`insert into oauth_grants ${sql.insert(row)}`.pipe(Effect.asVoid),

    bindGrantResource: (grantId: string, resource: string) =>
      sql`update oauth_grants set resource = ${resource} where id = ${grantId} and resource is null`.pipe(Effect.asVoid),

    insertCode: (row: { code_hash: string; grant_id: string; redirect_uri: string; code_challenge: string; code_challenge_method: "S256"; expires_at: Date }) =>
      sql`insert into oauth_codes ${sql.insert(row)}`.pipe(Effect.asVoid),

    /** The code with its grant, row-locked for the rest of the transaction. */
    lockCode: (codeHash: string) =>
      sql<CodeRow>`
        select c.code_hash, c.grant_id, c.redirect_uri, c.code_challenge, c.expires_at, c.used_at,
               g.client_id, g.user_id, g.scope, g.resource, g.revoked_at as grant_revoked_at
        from oauth_codes c join oauth_grants g on g.id = c.grant_id
        where c.code_hash = ${codeHash}
        for update of c`.pipe(Effect.map((rows) => rows[0])),

    markCodeUsed: (codeHash: string, now: Date) => sql`update oauth_codes set used_at = ${now} where code_hash = ${codeHash}`.pipe(Effect.asVoid),

    insertTokens: (rows: ReadonlyArray<{ token_hash: string; kind: "access" | "refresh"; grant_id: string; scope: string; resource: string | null; created_at: Date; expires_at: Date }>) =>
      sql`insert into oauth_tokens ${sql.insert(rows as Array<any>)}`.pipe(Effect.asVoid),

    /** A token with its grant; `lock` row-locks the token for the rest of the transaction. */
    tokenByHash: (tokenHash: string, lock: boolean) =>
      (lock
        ? sql<TokenRow>`
          select t.token_hash, t.kind, t.grant_id, t.scope, t.resource, t.created_at, t.expires_at, t.used_at, t.revoked_at,
                 g.client_id, g.user_id, g.revoked_at as grant_revoked_at
          from oauth_tokens t join oauth_grants g on g.id = t.grant_id
          where t.token_hash = ${tokenHash}
          for update of t`
        : sql<TokenRow>`
          select t.token_hash, t.kind, t.grant_id, t.scope, t.resource, t.created_at, t.expires_at, t.used_at, t.revoked_at,
                 g.client_id, g.user_id, g.revoked_at as grant_revoked_at
          from oauth_tokens t join oauth_grants g on g.id = t.grant_id
          where t.token_hash = ${tokenHash}`).pipe(Effect.map((rows) => rows[0])),

    /** The live access token presented on a request (hot path: one index probe + join). */
    activeAccessToken: (tokenHash: string, now: Date) =>
      sql<{ scope: string; resource: string | null; client_id: string; user_id: string }>`
        select t.scope, t.resource, g.client_id, g.user_id
        from oauth_tokens t join oauth_grants g on g.id = t.grant_id
        where t.token_hash = ${tokenHash} and t.kind = 'access' and t.revoked_at is null
          and t.expires_at > ${now} and g.revoked_at is null`.pipe(Effect.map((rows) => rows[0])),

    markTokenUsed: (tokenHash: string, now: Date) => sql`update oauth_tokens set used_at = ${now} where token_hash = ${tokenHash}`.pipe(Effect.asVoid),

    revokeToken: (tokenHash: string, now: Date) =>
      sql`update oauth_tokens set revoked_at = ${now} where token_hash = ${tokenHash} and revoked_at is null`.pipe(Effect.asVoid),

    /** Revokes the grant and every code and token issued under it. */
    revokeGrant: (grantId: string, reason: string, now: Date) =>
      Effect.all([
        sql`update oauth_grants set revoked_at = ${now}, revoked_reason = ${reason} where id = ${grantId} and revoked_at is null`,
        sql`update oauth_tokens set revoked_at = ${now} where grant_id = ${grantId} and revoked_at is null`,
        sql`update oauth_codes set used_at = coalesce(used_at, ${now}) where grant_id = ${grantId}`
      ], { discard: true }),

    /** Housekeeping: expired codes and tokens (long past any reuse window) go away. */
    deleteExpired: (before: Date) =>
      Effect.all([
        sql`delete from oauth_codes where expires_at < ${before}`,
        sql`delete from oauth_tokens where expires_at < ${before}`
      ], { discard: true })
  }
})
