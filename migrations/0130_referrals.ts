import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Referrals (docs/referrals.md): affiliates' links, their clicks (hashed IP; the salt rotates
 * daily and old salts are deleted), checkouts opened by attributed buyers, and the daily
 * roll-up the reports read (`referral_daily`, one row per link and UTC day, maintained at write
 * time: clicks by the click writer, checkouts by the attribution layer, sales and refunds of
 * referral orders by a trigger on `partner_orders`, in the order's own transaction).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The hosted checkout adds the same column (IF NOT EXISTS on both sides).
  yield* sql`alter table partner_orders add column if not exists referral_link_id text`
  yield* sql`create index if not exists partner_orders_referral on partner_orders (partner_id, environment, id) where payment_model = 'referral'`

  yield* sql`
    create table referral_links (
      id text primary key,
      code text not null unique,
      partner_id text not null references partners (id),
      environment text not null check (environment in ('live', 'sandbox')),
      kind text not null check (kind in ('generic', 'domain', 'product')),
      domain text,
      product text,
      campaign text,
      created_at timestamptz not null default now()
    )`
  yield* sql`create index referral_links_partner on referral_links (partner_id, environment, id desc)`

  yield* sql`
    create table referral_clicks (
      id text primary key,
      link_id text not null,
      partner_id text not null,
      environment text not null,
      clicked_at timestamptz not null,
      ip_hash text not null,
      user_agent text,
      referrer text,
      bot boolean not null,
      is_unique boolean not null
    )`
  yield* sql`create index referral_clicks_partner on referral_clicks (partner_id, environment, clicked_at)`
  yield* sql`create index referral_clicks_link on referral_clicks (link_id, clicked_at)`

  yield* sql`
    create table referral_salts (
      day date primary key,
      salt text not null
    )`

  yield* sql`
    create table referral_checkouts (
      session_id text primary key,
      link_id text not null,
      partner_id text not null,
      environment text not null,
      click_id text not null,
      domain text not null,
      started_at timestamptz not null default now()
    )`

  yield* sql`
    create table referral_daily (
      link_id text not null,
      day date not null,
      partner_id text not null,
      environment text not null,
      clicks bigint not null default 0,
      unique_clicks bigint not null default 0,
      checkouts_started bigint not null default 0,
      sales bigint not null default 0,
      gmv_cents bigint not null default 0,
      commission_cents bigint not null default 0,
      primary key (link_id, day)
    )`
  yield* sql`create index referral_daily_partner on referral_daily (partner_id, environment, day)`

  // Referral sales roll up when the order is written, whoever writes it (the hosted checkout);
  // a refund or cancellation takes the sale back out of the day it was made.
  yield* sql`
    create or replace function referral_sales_rollup() returns trigger language plpgsql as $$
    begin
      if new.payment_model <> 'referral' or new.referral_link_id is null then
        return null;
      end if;
      if tg_op = 'INSERT' then
        if new.status not in ('REFUNDED', 'CANCELLED') then
          insert into referral_daily (link_id, day, partner_id, environment, sales, gmv_cents, commission_cents)
          values (new.referral_link_id, (new.created_at at time zone 'UTC')::date, new.partner_id, new.environment,
                  1, new.sale_price_cents, new.commission_cents)
          on conflict (link_id, day) do update set
            sales = referral_daily.sales + 1,
            gmv_cents = referral_daily.gmv_cents + excluded.gmv_cents,
            commission_cents = referral_daily.commission_cents + excluded.commission_cents;
        end if;
      elsif new.status in ('REFUNDED', 'CANCELLED') and old.status not in ('REFUNDED', 'CANCELLED') then
        update referral_daily set
          sales = sales - 1,
          gmv_cents = gmv_cents - old.sale_price_cents,
          commission_cents = commission_cents - old.commission_cents
        where link_id = old.referral_link_id and day = (old.created_at at time zone 'UTC')::date;
      end if;
      return null;
    end $$`
  yield* sql`
    create trigger partner_orders_referral_rollup after insert or update of status on partner_orders
    for each row execute function referral_sales_rollup()`
})
