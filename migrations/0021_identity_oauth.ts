import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * OAuth 2.1 authorization server state.
 *
 * - `oauth_clients`: dynamically registered public clients (RFC 7591), no secret.
 * - `oauth_grants`: one per approved authorization; every code and token hangs off a grant, so
 *   "revoke every token of the grant" (code or refresh-token reuse) is one update.
 * - `oauth_codes`, `oauth_tokens`: only SHA-256 hashes of the codes and tokens are stored.
 *   `used_at` marks a spent code / a rotated refresh token; presenting one again revokes the grant.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table oauth_clients (
      client_id text primary key,
      client_name text,
      redirect_uris jsonb not null,
      metadata jsonb not null,
      created_at timestamptz not null default now()
    )`
  yield* sql`
    create table oauth_grants (
      id text primary key,
      client_id text not null references oauth_clients (client_id) on delete cascade,
      user_id text not null references users (id) on delete cascade,
      scope text not null,
      resource text,
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      revoked_reason text
    )`
  yield* sql`create index oauth_grants_user on oauth_grants (user_id)`
  yield* sql`
    create table oauth_codes (
      code_hash text primary key,
      grant_id text not null references oauth_grants (id) on delete cascade,
      redirect_uri text not null,
      code_challenge text not null,
      code_challenge_method text not null check (code_challenge_method = 'S256'),
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    )`
  yield* sql`create index oauth_codes_grant on oauth_codes (grant_id)`
  yield* sql`create index oauth_codes_expires on oauth_codes (expires_at)`
  yield* sql`
    create table oauth_tokens (
      token_hash text primary key,
      kind text not null check (kind in ('access', 'refresh')),
      grant_id text not null references oauth_grants (id) on delete cascade,
      scope text not null,
      resource text,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz,
      revoked_at timestamptz
    )`
  yield* sql`create index oauth_tokens_grant on oauth_tokens (grant_id)`
  yield* sql`create index oauth_tokens_expires on oauth_tokens (expires_at)`
})
