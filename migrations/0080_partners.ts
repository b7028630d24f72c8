import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Partner API: partners, their signing credentials (secrets AES-GCM sealed with SERVICE_SECRET),
 * nonces seen (shared by every replica), quotes with their reservations, orders with their
 * timeline, the event outbox, webhook endpoints, deliveries and every delivery attempt.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`create extension if not exists pg_trgm`
  yield* sql`
    create table partners (
      id text primary key,
      name text not null,
      affiliate boolean not null default false,
      commission_bps integer not null default 1000 check (commission_bps between 0 and 10000),
      created_at timestamptz not null default now()
    )`
  yield* sql`
    create table partner_credentials (
      id text primary key,
      partner_id text not null references partners (id),
      key_id text not null unique,
      secret_sealed text not null,
      environment text not null check (environment in ('live', 'sandbox')),
      scopes text[] not null,
      active boolean not null default true,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`
  yield* sql`create index partner_credentials_partner on partner_credentials (partner_id)`
  yield* sql`
    create table partner_nonces (
      key_id text not null,
      nonce text not null,
      expires_at timestamptz not null,
      primary key (key_id, nonce)
    )`
  yield* sql`create index partner_nonces_expires on partner_nonces (expires_at)`
  yield* sql`
    create table partner_quotes (
      id text primary key,
      partner_id text not null references partners (id),
      environment text not null,
      listing_id text not null,
      domain text not null,
      price_cents bigint not null,
      currency text not null,
      expires_at timestamptz not null,
      created_at timestamptz not null default now(),
      used_by_order text
    )`
  yield* sql`create index partner_quotes_domain on partner_quotes (environment, domain, expires_at)`
  yield* sql`
    create table partner_orders (
      id text primary key,
      partner_id text not null references partners (id),
      credential_id text not null,
      environment text not null,
      listing_id text not null,
      domain text not null,
      status text not null,
      sale_price_cents bigint not null,
      currency text not null,
      external_payment_ref text not null,
      quote_id text,
      buyer jsonb not null,
      return_url text,
      cancel_url text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      transfer_completed_at timestamptz,
      settled_at timestamptz,
      refunded_at timestamptz
    )`
  yield* sql`create index partner_orders_list on partner_orders (partner_id, environment, id desc)`
  yield* sql`create index partner_orders_status on partner_orders (status, transfer_completed_at)`
  yield* sql`
    create table partner_order_timeline (
      seq bigserial primary key,
      order_id text not null references partner_orders (id),
      kind text not null check (kind in ('status', 'transfer_step')),
      status text,
      from_status text,
      step text,
      event_id text,
      actor text not null,
      note text,
      at timestamptz not null default now()
    )`
  yield* sql`create index partner_order_timeline_order on partner_order_timeline (order_id, seq)`
  yield* sql`
    create table partner_refunds (
      id text primary key,
      order_id text not null unique references partner_orders (id),
      partner_id text not null,
      amount_cents bigint not null,
      reason text,
      created_at timestamptz not null default now()
    )`
  yield* sql`
    create table partner_events (
      id text primary key,
      partner_id text not null references partners (id),
      environment text not null,
      type text not null,
      data jsonb not null,
      created_at timestamptz not null default now()
    )`
  yield* sql`create index partner_events_feed on partner_events (partner_id, environment, id)`
  yield* sql`
    create table partner_webhooks (
      partner_id text not null references partners (id),
      environment text not null,
      url text not null,
      secret_sealed text not null,
      active boolean not null default true,
      disabled_reason text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (partner_id, environment)
    )`
  yield* sql`
    create table partner_webhook_deliveries (
      id text primary key,
      event_id text not null references partner_events (id),
      partner_id text not null,
      environment text not null,
      status text not null default 'pending' check (status in ('pending', 'delivered', 'failed', 'cancelled')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      locked_until timestamptz,
      last_status integer,
      last_error text,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    )`
  yield* sql`create index partner_webhook_deliveries_due on partner_webhook_deliveries (next_attempt_at) where status = 'pending'`
  yield* sql`create index partner_webhook_deliveries_event on partner_webhook_deliveries (event_id)`
  yield* sql`
    create table partner_webhook_attempts (
      seq bigserial primary key,
      delivery_id text not null references partner_webhook_deliveries (id),
      attempt integer not null,
      url text not null,
      started_at timestamptz not null,
      duration_ms integer not null,
      status integer,
      error text
    )`
  yield* sql`create index partner_webhook_attempts_delivery on partner_webhook_attempts (delivery_id, seq)`
  // Keyword search over listing labels (trigram similarity, substring) for the partner search.
  yield* sql`create index if not exists listings_label_trgm on listings using gin (label gin_trgm_ops)`
})
