import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type Posting, recorded, refunded, type SaleFacts, settled } from "../src/domain/Ledger.js"
import { makeId } from "../src/platform/Ids.js"

/**
 * The partner ledger (docs/money.md): the commission rate and payment model frozen on each order,
 * double-entry transactions and their entries (immutable: updates and deletes are refused),
 * settlement runs, statements and their lines, payouts. Existing orders are back-filled with the
 * postings their status implies, using the same rules as the service (src/domain/Ledger.ts).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table partner_orders add column if not exists payment_model text not null default 'partner_collected'`
  yield* sql`alter table partner_orders add column if not exists commission_bps integer`
  yield* sql`alter table partner_orders add column if not exists commission_cents bigint`
  yield* sql`update partner_orders o set commission_bps = p.commission_bps from partners p
             where p.id = o.partner_id and o.commission_bps is null`
  yield* sql`update partner_orders set commission_cents = sale_price_cents * commission_bps / 10000 where commission_cents is null`
  yield* sql`alter table partner_orders alter column commission_bps set not null`
  yield* sql`alter table partner_orders alter column commission_cents set not null`
  yield* sql`create index partner_orders_due on partner_orders (transfer_completed_at) where status = 'TRANSFER_COMPLETED'`
  yield* sql`create index partner_orders_transactions on partner_orders (partner_id, environment, created_at, id)`

  yield* sql`
    create table ledger_transactions (
      id text primary key,
      natural_key text not null unique,
      partner_id text not null,
      environment text not null check (environment in ('live', 'sandbox')),
      currency text not null,
      kind text not null,
      order_id text,
      statement_id text,
      payout_id text,
      created_at timestamptz not null default now()
    )`
  yield* sql`create index ledger_transactions_order on ledger_transactions (order_id)`
  yield* sql`create index ledger_transactions_payout on ledger_transactions (payout_id) where payout_id is not null`
  yield* sql`
    create table ledger_entries (
      seq bigserial primary key,
      transaction_id text not null references ledger_transactions (id),
      partner_id text not null,
      environment text not null,
      account text not null,
      amount_cents bigint not null,
      currency text not null
    )`
  yield* sql`create index ledger_entries_account on ledger_entries (partner_id, environment, account)`
  yield* sql`create index ledger_entries_transaction on ledger_entries (transaction_id)`
  yield* sql`
    create or replace function ledger_immutable() returns trigger language plpgsql as $$
    begin
      raise exception 'ledger rows are immutable: post a reversing transaction instead';
    end $$`
  yield* sql`create trigger ledger_transactions_immutable before update or delete on ledger_transactions
             for each row execute function ledger_immutable()`
  yield* sql`create trigger ledger_entries_immutable before update or delete on ledger_entries
             for each row execute function ledger_immutable()`

  yield* sql`
    create table settlement_runs (
      id text primary key,
      trigger text not null,
      as_of timestamptz not null,
      cutoff timestamptz not null,
      started_at timestamptz not null default now(),
      finished_at timestamptz,
      orders_settled integer not null default 0,
      statements integer not null default 0
    )`
  yield* sql`
    create table settlement_statements (
      id text primary key,
      run_id text not null references settlement_runs (id),
      partner_id text not null,
      environment text not null,
      currency text not null,
      period_start timestamptz not null,
      period_end timestamptz not null,
      orders_count integer not null,
      gross_sold_cents bigint not null,
      commission_retained_cents bigint not null,
      amount_owed_cents bigint not null,
      commission_payable_cents bigint not null,
      refunds_cents bigint not null,
      status text not null default 'closed' check (status in ('closed', 'paid')),
      created_at timestamptz not null default now(),
      unique (run_id, partner_id, environment, currency)
    )`
  yield* sql`create index settlement_statements_partner on settlement_statements (partner_id, environment, id desc)`
  yield* sql`
    create table settlement_lines (
      order_id text primary key,
      statement_id text not null references settlement_statements (id),
      domain text not null,
      payment_model text not null,
      sale_price_cents bigint not null,
      commission_cents bigint not null,
      owed_cents bigint not null
    )`
  yield* sql`create index settlement_lines_statement on settlement_lines (statement_id, order_id)`
  yield* sql`
    create table partner_payouts (
      id text primary key,
      partner_id text not null,
      environment text not null,
      amount_cents bigint not null check (amount_cents > 0),
      currency text not null,
      status text not null check (status in ('pending', 'paid', 'failed')),
      method text not null,
      source text not null check (source in ('checkout', 'referral', 'brokerage', 'mixed')),
      provider_ref text,
      failure text,
      created_at timestamptz not null default now(),
      paid_at timestamptz
    )`
  yield* sql`alter table partners add column if not exists payout_account text`
  yield* sql`create index partner_payouts_partner on partner_payouts (partner_id, environment, id desc)`
  yield* sql`create index partner_payouts_pending on partner_payouts (created_at) where status = 'pending'`

  // Back-fill: the postings each existing order's status implies.
  const orders = yield* sql<{
    id: string
    partner_id: string
    environment: string
    currency: string
    status: string
    payment_model: SaleFacts["paymentModel"]
    sale_price_cents: number
    commission_bps: number
  }>`select id, partner_id, environment, currency, status, payment_model, sale_price_cents, commission_bps from partner_orders order by id`
  for (const o of orders) {
    const facts: SaleFacts = {
      orderId: o.id,
      paymentModel: o.payment_model,
      saleCents: Number(o.sale_price_cents),
      commissionBps: o.commission_bps
    }
    const postings: Array<Posting> = [recorded(facts)]
    if (o.status === "REFUNDED" || o.status === "CANCELLED") postings.push(refunded(facts))
    if (o.status === "SETTLED") postings.push(settled(facts))
    for (const p of postings) {
      const id = makeId("ltx")
      yield* sql`insert into ledger_transactions (id, natural_key, partner_id, environment, currency, kind, order_id)
                 values (${id}, ${p.key}, ${o.partner_id}, ${o.environment}, ${o.currency}, ${p.kind}, ${o.id})`
      for (const e of p.entries) {
        yield* sql`insert into ledger_entries (transaction_id, partner_id, environment, account, amount_cents, currency)
                   values (${id}, ${o.partner_id}, ${o.environment}, ${e.account}, ${e.amount}, ${o.currency})`
      }
    }
  }
})
