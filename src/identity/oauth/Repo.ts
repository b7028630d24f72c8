/**
 * SQL for the OAuth authorization server: clients, grants, codes, tokens (hashes only). Rows are
 * decoded by their schema; a database failure is a defect here, once (`transaction` too).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { transactionOf } from "../../platform/db/SqlTransaction.js"

/** A jsonb column: the pg driver parses it; a text rendering (older drivers, casts) is parsed here. */
const Jsonb = <A, I>(schema: Schema.Schema<A, I>) => Schema.Union(schema, Schema.parseJson(schema))

export const ClientRow = Schema.Struct({
  client_id: Schema.String,
  client_name: Schema.NullOr(Schema.String),
  redirect_uris: Jsonb(Schema.Array(Schema.String)),
  metadata: Jsonb(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  created_at: Schema.DateFromSelf
})
export type ClientRow = typeof ClientRow.Type

export const CodeRow = Schema.Struct({
  code_hash: Schema.String,
  grant_id: Schema.String,
  redirect_uri: Schema.String,
  code_challenge: Schema.String,
  expires_at: Schema.DateFromSelf,
  used_at: Schema.NullOr(Schema.DateFromSelf),
  client_id: Schema.String,
  user_id: Schema.String,
  scope: Schema.String,
  resource: Schema.NullOr(Schema.String),
  grant_revoked_at: Schema.NullOr(Schema.DateFromSelf)
})
export type CodeRow = typeof CodeRow.Type

export const TokenRow = Schema.Struct({
  token_hash: Schema.String,
  kind: Schema.Literal("access", "refresh"),
  grant_id: Schema.String,
  scope: Schema.String,
  resource: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  expires_at: Schema.DateFromSelf,
  used_at: Schema.NullOr(Schema.DateFromSelf),
  revoked_at: Schema.NullOr(Schema.DateFromSelf),
  client_id: Schema.String,
  user_id: Schema.String,
  grant_revoked_at: Schema.NullOr(Schema.DateFromSelf)
})
export type TokenRow = typeof TokenRow.Type

/** What the bearer check needs of a live access token. */
export const ActiveAccessToken = Schema.Struct({
  scope: Schema.String,
  resource: Schema.NullOr(Schema.String),
  client_id: Schema.String,
  user_id: Schema.String
})

const NewClient = Schema.Struct({
  client_id: Schema.String,
  client_name: Schema.NullOr(Schema.String),
  redirect_uris: Schema.Array(Schema.String),
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
const NewGrant = Schema.Struct({
  id: Schema.String,
  client_id: Schema.String,
  user_id: Schema.String,
  scope: Schema.String,
  resource: Schema.NullOr(Schema.String)
})
const NewCode = Schema.Struct({
  code_hash: Schema.String,
  grant_id: Schema.String,
  redirect_uri: Schema.String,
  code_challenge: Schema.String,
  code_challenge_method: Schema.Literal("S256"),
  expires_at: Schema.DateFromSelf
})
/** A token as issued: the row's own columns, before use, revocation or the grant's join. */
const NewToken = TokenRow.pipe(
  Schema.pick("token_hash", "kind", "grant_id", "scope", "resource", "created_at", "expires_at")
)
const HashAt = Schema.Struct({ hash: Schema.String, now: Schema.DateFromSelf })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const clientColumns = sql`client_id, client_name, redirect_uris, metadata, created_at`
  const tokenSelect = sql`
    select t.token_hash, t.kind, t.grant_id, t.scope, t.resource, t.created_at, t.expires_at, t.used_at, t.revoked_at,
           g.client_id, g.user_id, g.revoked_at as grant_revoked_at
    from oauth_tokens t join oauth_grants g on g.id = t.grant_id`

  const insertClient = SqlSchema.single({
    Request: NewClient,
    Result: ClientRow,
    execute: (row) =>
      sql`
        insert into oauth_clients (client_id, client_name, redirect_uris, metadata)
        values (${row.client_id}, ${row.client_name}, ${JSON.stringify(row.redirect_uris)}::jsonb, ${
        JSON.stringify(row.metadata)
      }::jsonb)
        returning ${clientColumns}`
  })
  const clientById = SqlSchema.findOne({
    Request: Schema.String,
    Result: ClientRow,
    execute: (clientId) => sql`select ${clientColumns} from oauth_clients where client_id = ${clientId}`
  })
  const insertGrant = SqlSchema.void({
    Request: NewGrant,
    execute: (row) => sql`insert into oauth_grants ${sql.insert(row)}`
  })
  const bindGrantResource = SqlSchema.void({
    Request: Schema.Struct({ grantId: Schema.String, resource: Schema.String }),
    execute: ({ grantId, resource }) =>
      sql`update oauth_grants set resource = ${resource} where id = ${grantId} and resource is null`
  })
  const insertCode = SqlSchema.void({
    Request: NewCode,
    execute: (row) => sql`insert into oauth_codes ${sql.insert(row)}`
  })
  const lockCode = SqlSchema.findOne({
    Request: Schema.String,
    Result: CodeRow,
    execute: (codeHash) =>
      sql`
        select c.code_hash, c.grant_id, c.redirect_uri, c.code_challenge, c.expires_at, c.used_at,
               g.client_id, g.user_id, g.scope, g.resource, g.revoked_at as grant_revoked_at
        from oauth_codes c join oauth_grants g on g.id = c.grant_id
        where c.code_hash = ${codeHash}
        for update of c`
  })
  const markCodeUsed = SqlSchema.void({
    Request: HashAt,
    execute: ({ hash, now }) => sql`update oauth_codes set used_at = ${now} where code_hash = ${hash}`
  })
  const insertTokens = SqlSchema.void({
    Request: Schema.Array(NewToken),
    execute: (rows) => sql`insert into oauth_tokens ${sql.insert(rows as Array<typeof NewToken.Type>)}`
  })
  const tokenByHash = SqlSchema.findOne({
    Request: Schema.String,
    Result: TokenRow,
    execute: (tokenHash) => sql`${tokenSelect} where t.token_hash = ${tokenHash}`
  })
  const lockToken = SqlSchema.findOne({
    Request: Schema.String,
    Result: TokenRow,
    execute: (tokenHash) => sql`${tokenSelect} where t.token_hash = ${tokenHash} for update of t`
  })
  const activeAccessToken = SqlSchema.findOne({
    Request: HashAt,
    Result: ActiveAccessToken,
    execute: ({ hash, now }) =>
      sql`
        select t.scope, t.resource, g.client_id, g.user_id
        from oauth_tokens t join oauth_grants g on g.id = t.grant_id
        where t.token_hash = ${hash} and t.kind = 'access' and t.revoked_at is null
          and t.expires_at > ${now} and g.revoked_at is null`
  })
  const markTokenUsed = SqlSchema.void({
    Request: HashAt,
    execute: ({ hash, now }) => sql`update oauth_tokens set used_at = ${now} where token_hash = ${hash}`
  })
  const revokeToken = SqlSchema.void({
    Request: HashAt,
    execute: ({ hash, now }) =>
      sql`update oauth_tokens set revoked_at = ${now} where token_hash = ${hash} and revoked_at is null`
  })
  const revokeGrant = SqlSchema.void({
    Request: Schema.Struct({ grantId: Schema.String, reason: Schema.String, now: Schema.DateFromSelf }),
    execute: ({ grantId, now, reason }) =>
      Effect.all([
        sql`update oauth_grants set revoked_at = ${now}, revoked_reason = ${reason} where id = ${grantId} and revoked_at is null`,
        sql`update oauth_tokens set revoked_at = ${now} where grant_id = ${grantId} and revoked_at is null`,
        sql`update oauth_codes set used_at = coalesce(used_at, ${now}) where grant_id = ${grantId}`
      ], { discard: true })
  })
  const deleteExpired = SqlSchema.void({
    Request: Schema.DateFromSelf,
    execute: (before) =>
      Effect.all([
        sql`delete from oauth_codes where expires_at < ${before}`,
        sql`delete from oauth_tokens where expires_at < ${before}`
      ], { discard: true })
  })

  return {
    transaction: transactionOf(sql),
    insertClient: (row: typeof NewClient.Type) => Effect.orDie(insertClient(row)),
    clientById: (clientId: string) => Effect.orDie(clientById(clientId)),
    insertGrant: (row: typeof NewGrant.Type) => Effect.orDie(insertGrant(row)),
    bindGrantResource: (grantId: string, resource: string) => Effect.orDie(bindGrantResource({ grantId, resource })),
    insertCode: (row: typeof NewCode.Type) => Effect.orDie(insertCode(row)),
    /** The code with its grant, row-locked for the rest of the transaction. */
    lockCode: (codeHash: string) => Effect.orDie(lockCode(codeHash)),
    markCodeUsed: (codeHash: string, now: Date) => Effect.orDie(markCodeUsed({ hash: codeHash, now })),
    insertTokens: (rows: ReadonlyArray<typeof NewToken.Type>) => Effect.orDie(insertTokens(rows)),
    /** A token with its grant; `lock` row-locks the token for the rest of the transaction. */
    tokenByHash: (tokenHash: string, lock: boolean) =>
      Effect.orDie(lock ? lockToken(tokenHash) : tokenByHash(tokenHash)),
    /** The live access token presented on a request (hot path: one index probe + join). */
    activeAccessToken: (tokenHash: string, now: Date) => Effect.orDie(activeAccessToken({ hash: tokenHash, now })),
    markTokenUsed: (tokenHash: string, now: Date) => Effect.orDie(markTokenUsed({ hash: tokenHash, now })),
    revokeToken: (tokenHash: string, now: Date) => Effect.orDie(revokeToken({ hash: tokenHash, now })),
    /** Revokes the grant and every code and token issued under it. */
    revokeGrant: (grantId: string, reason: string, now: Date) => Effect.orDie(revokeGrant({ grantId, reason, now })),
    /** Housekeeping: expired codes and tokens (long past any reuse window) go away. */
    deleteExpired: (before: Date) => Effect.orDie(deleteExpired(before))
  }
})

export class OAuthRepo extends Effect.Service<OAuthRepo>()("app/OAuthRepo", { effect: make }) {}
