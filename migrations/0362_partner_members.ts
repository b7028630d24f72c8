import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The partner console's people (docs/consoles.md): accounts linked to a partner with a role, and
 * the invitations that link them (single-use, expiring, only the token's SHA-256 kept). The
 * member's e-mail is copied at joining so the partner slice lists its members without reading the
 * identity slice's tables. A credential may end at a time (`expires_at`, a rotation's grace period)
 * and records when and from where it was last used (at most once a minute).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table if not exists partner_members (
      partner_id text not null references partners (id),
      user_id text not null references users (id) on delete cascade,
      email text not null,
      role text not null check (role in ('owner', 'developer', 'finance', 'viewer')),
      created_at timestamptz not null default now(),
      primary key (partner_id, user_id)
    )`
  yield* sql`create index if not exists partner_members_user on partner_members (user_id)`
  yield* sql`
    create table if not exists partner_invitations (
      id text primary key,
      partner_id text not null references partners (id),
      email text not null,
      role text not null check (role in ('owner', 'developer', 'finance', 'viewer')),
      token_hash text not null unique,
      invited_by text not null,
      expires_at timestamptz not null,
      accepted_at timestamptz,
      accepted_by text,
      created_at timestamptz not null default now()
    )`
  yield* sql`create index if not exists partner_invitations_partner on partner_invitations (partner_id, created_at desc)`
  yield* sql`alter table partner_credentials add column if not exists expires_at timestamptz`
  yield* sql`alter table partner_credentials add column if not exists last_used_at timestamptz`
  yield* sql`alter table partner_credentials add column if not exists last_used_ip text`
})
