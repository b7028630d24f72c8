import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Hosted checkout (docs/checkout.md): checkout sessions (partner sessions, the marketplace's own
 * `/buy/` sessions and bulk renew/restore carts), the reservation of a domain while a payment is
 * in progress (a partial unique index: one paying session per listing), the house partner that
 * owns the marketplace's own sales (`ptn_marketplace`, commission 0), and on partner_orders the
 * session that created an order (unique: one order per session, whatever retries or webhooks do)
 * and the referral link of a referral sale.
 *
 * Card numbers are never stored: a session keeps the card's brand and last 4 digits only.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    insert into partners (id, name, affiliate, commission_bps) values ('ptn_marketplace', 'Domain Marketplace', false, 0)
    on conflict (id) do nothing`
  yield* sql`alter table partner_orders add column if not exists referral_link_id text`
  yield* sql`alter table partner_orders add column if not exists checkout_session_id text`
  yield* sql`create unique index if not exists partner_orders_checkout_session on partner_orders (checkout_session_id)
             where checkout_session_id is not null`
  yield* sql`
    create table if not exists checkout_sessions (
      id text primary key,
      kind text not null check (kind in ('partner', 'marketplace', 'cart')),
      partner_id text references partners (id),
      credential_id text,
      environment text not null check (environment in ('live', 'sandbox')),
      listing_id text,
      domain text,
      price_cents bigint not null check (price_cents >= 0),
      currency text not null,
      reference text,
      return_url text,
      cancel_url text,
      buyer_email text,
      buyer_name text,
      buyer_country text,
      referral_partner_id text,
      referral_link_id text,
      referral_click_id text,
      cart_id text unique,
      user_id text,
      items jsonb,
      status text not null default 'open'
        check (status in ('open', 'processing', 'requires_action', 'paid', 'expired', 'refunded')),
      provider text,
      payment_ref text,
      attempt integer not null default 0,
      card_brand text,
      card_last4 text,
      last_error text,
      order_id text,
      expires_at timestamptz not null,
      processing_since timestamptz,
      paid_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`
  yield* sql`create unique index if not exists checkout_sessions_reservation on checkout_sessions (listing_id)
             where status in ('processing', 'requires_action')`
  yield* sql`create index if not exists checkout_sessions_stuck on checkout_sessions (processing_since)
             where status in ('processing', 'requires_action')`
  yield* sql`create index if not exists checkout_sessions_partner on checkout_sessions (partner_id, environment, id desc)`
})
