import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Marketplace (aftermarket) inventory, one row per domain and environment. `live` holds real
 * domains, `sandbox` synthetic test domains for partners' sandbox credentials. Prices are USD
 * cents; `bin` = buy-now, `floor` = minimum accepted offer.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table listings (
      id text primary key,
      environment text not null check (environment in ('live', 'sandbox')),
      domain text not null,
      domain_unicode text not null,
      tld text not null,
      label text not null,
      bin_price_cents bigint check (bin_price_cents is null or bin_price_cents >= 0),
      floor_price_cents bigint check (floor_price_cents is null or floor_price_cents >= 0),
      currency text not null default 'USD',
      status text not null default 'active' check (status in ('active', 'pending', 'sold', 'withdrawn')),
      locked boolean not null default false,
      is_demo boolean not null default false,
      description text,
      listed_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (environment, domain)
    )`
  yield* sql`create index listings_newest on listings (environment, status, listed_at desc, id desc)`
  yield* sql`create index listings_price on listings (environment, status, bin_price_cents, id)`
  yield* sql`create index listings_tld on listings (environment, status, tld)`
})
