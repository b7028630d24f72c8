import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** TLD registry rules (as Realtime Register reports them) and the retail price list. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table tld_metadata (
      tld text primary key,
      provider text not null,
      info jsonb not null,
      source text not null default 'rtr',
      last_synced_at timestamptz not null
    )`
  yield* sql`
    create table tld_prices (
      tld text not null,
      op text not null check (op in ('register', 'renew', 'transfer', 'restore')),
      price_cents bigint not null check (price_cents >= 0),
      currency text not null default 'USD',
      source text not null,
      updated_at timestamptz not null default now(),
      primary key (tld, op)
    )`
})
