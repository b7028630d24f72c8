import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The signed-in portfolio and bulk domain operations (docs/portfolio.md).
 *
 * - `user_domains` gains the registrar-side state the portfolio shows: lock, auto-renew,
 *   nameservers, folder, contacts handle, expiry (new columns with defaults, so accounts' inserts
 *   are unchanged).
 * - `bulk_ops` / `bulk_items`: one row per bulk operation and one per domain in it. Items carry
 *   their own status, so a job resumed after a crash runs only what is not finished, and the
 *   counts are computed from the items (exact by construction).
 * - `carts` / `cart_items`: bulk renew/restore priced into one cart for one hosted checkout; a
 *   paid cart's items are run through the registrar by a durable job.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table user_domains add column if not exists locked boolean not null default false`
  yield* sql`alter table user_domains add column if not exists auto_renew boolean not null default false`
  yield* sql`alter table user_domains add column if not exists nameservers jsonb not null default '[]'::jsonb`
  yield* sql`alter table user_domains add column if not exists folder text`
  yield* sql`alter table user_domains add column if not exists contacts_handle text`
  yield* sql`alter table user_domains add column if not exists expires_at timestamptz not null default (now() + interval '1 year')`
  yield* sql`
    create table bulk_ops (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      op text not null,
      payload jsonb not null,
      skipped jsonb not null default '[]'::jsonb,
      job_id text,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz
    )`
  yield* sql`create index bulk_ops_user on bulk_ops (user_id, created_at)`
  yield* sql`
    create table bulk_items (
      bulk_op_id text not null references bulk_ops (id) on delete cascade,
      position integer not null,
      domain text not null,
      status text not null check (status in ('queued', 'running', 'succeeded', 'failed')),
      error text,
      attempts integer not null default 0,
      run integer not null default 0,
      updated_at timestamptz not null default now(),
      primary key (bulk_op_id, position)
    )`
  yield* sql`
    create table carts (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      status text not null check (status in ('open', 'paid')),
      currency text not null,
      total_cents bigint not null,
      session_id text,
      job_id text,
      created_at timestamptz not null default now(),
      paid_at timestamptz
    )`
  yield* sql`
    create table cart_items (
      id text primary key,
      cart_id text not null references carts (id) on delete cascade,
      domain text not null,
      op text not null check (op in ('renew', 'restore')),
      years integer not null,
      price_cents bigint not null,
      status text not null default 'pending' check (status in ('pending', 'running', 'succeeded', 'failed')),
      error text
    )`
  yield* sql`create index cart_items_cart on cart_items (cart_id)`
})
