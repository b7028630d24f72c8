import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Offers on marketplace listings (docs/market.md#make-an-offer): a buyer's amount and e-mail,
 * decided by the seller side (operator CLI) as accepted (a checkout link at that price),
 * countered (a checkout link at the counter price) or declined. The floor price stays on the
 * listing and is never copied here or shown to the buyer.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table if not exists market_offers (
      id text primary key,
      environment text not null,
      listing_id text not null,
      domain text not null,
      amount_cents bigint not null check (amount_cents > 0),
      currency text not null,
      email text not null,
      status text not null default 'pending' check (status in ('pending', 'accepted', 'countered', 'declined')),
      counter_cents bigint check (counter_cents is null or counter_cents > 0),
      checkout_session_id text,
      created_at timestamptz not null default now(),
      decided_at timestamptz
    )`
  yield* sql`create index if not exists market_offers_status on market_offers (status, id)`
})
