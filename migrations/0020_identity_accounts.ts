import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Accounts and sign-in sessions. Passwords are scrypt hashes; session ids are random 256-bit
 * values of which only the SHA-256 is stored (a database leak yields no usable cookie).
 * `user_domains` lists the domains a user owns (bulk operations act only on those).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table users (
      id text primary key,
      email text not null,
      password_hash text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`
  yield* sql`create unique index users_email on users (lower(email))`
  yield* sql`
    create table user_domains (
      domain text primary key,
      user_id text not null references users (id) on delete cascade,
      added_at timestamptz not null default now()
    )`
  yield* sql`create index user_domains_user on user_domains (user_id, domain)`
  yield* sql`
    create table sessions (
      token_hash text primary key,
      id text not null unique,
      user_id text not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    )`
  yield* sql`create index sessions_user on sessions (user_id)`
  yield* sql`create index sessions_expires on sessions (expires_at)`
})
