import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Brokerage cases (docs/brokerage.md) and their timeline. At most one open case per domain and
 * environment across all partners: a partial unique index, so two partners creating at once get
 * one case and one 409. A won case keeps its deal price, the service's fee and the partner's
 * share (frozen rates) and the id of the commission row in partner_orders (payment_model
 * `brokerage`) that settlement, /transactions and `ledger verify` read.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table brokerage_cases (
      id text primary key,
      partner_id text not null references partners (id),
      credential_id text not null,
      environment text not null check (environment in ('live', 'sandbox')),
      domain text not null,
      tier text not null check (tier in ('managed', 'self_serve')),
      status text not null check (status in ('open', 'researching', 'contacting_owner', 'negotiating', 'deal_agreed', 'closed_won', 'closed_lost', 'cancelled')),
      buyer_email text not null,
      budget_cents bigint not null check (budget_cents >= 0),
      notes text,
      currency text not null default 'USD',
      agreed_price_cents bigint,
      deal_price_cents bigint,
      fee_bps integer,
      fee_cents bigint,
      partner_share_bps integer,
      partner_share_cents bigint,
      order_id text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      closed_at timestamptz
    )`
  yield* sql`
    create unique index brokerage_cases_one_open on brokerage_cases (environment, domain)
    where status in ('open', 'researching', 'contacting_owner', 'negotiating', 'deal_agreed')`
  yield* sql`create index brokerage_cases_partner on brokerage_cases (partner_id, environment, id desc)`
  yield* sql`
    create table brokerage_case_timeline (
      seq bigserial primary key,
      case_id text not null references brokerage_cases (id),
      status text not null,
      from_status text,
      price_cents bigint,
      event_id text,
      actor text not null,
      note text,
      at timestamptz not null default now()
    )`
  yield* sql`create index brokerage_case_timeline_case on brokerage_case_timeline (case_id, seq)`
})
