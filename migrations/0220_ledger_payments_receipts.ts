import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 29 (money integrity), docs/money.md:
 * - `ledger_transactions.payment_id`: the checkout session whose cash a posting moves when it has
 *   no order (carts), so `ledger verify` can match every captured payment to its postings.
 * - `partner_receipts`: what a partner paid against its statements (`ledger receipt`); one
 *   receipt per partner, environment and operator reference.
 * - A won brokerage case booked the fee as cash from the buyer (`buyer_payments`) though nothing
 *   was collected: each such posting is corrected by a new one (the ledger is immutable) moving
 *   the fee to `brokerage_fee_receivable`, as the service now books it.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table ledger_transactions add column if not exists payment_id text`
  yield* sql`create index if not exists ledger_transactions_payment on ledger_transactions (payment_id) where payment_id is not null`
  yield* sql`
    create table if not exists partner_receipts (
      id text primary key,
      partner_id text not null,
      environment text not null check (environment in ('live', 'sandbox')),
      currency text not null,
      amount_cents bigint not null check (amount_cents > 0),
      reference text not null,
      created_at timestamptz not null default now(),
      unique (partner_id, environment, reference)
    )`
  yield* sql`create index if not exists partner_receipts_partner on partner_receipts (partner_id, environment, currency, id)`

  const wrong = yield* sql<{ id: string; partner_id: string; environment: string; currency: string; fee: string }>`
    select o.id, o.partner_id, o.environment, o.currency, sum(e.amount_cents)::text as fee
    from partner_orders o
    join ledger_transactions t on t.natural_key = 'order:' || o.id || ':recorded'
    join ledger_entries e on e.transaction_id = t.id and e.account = 'buyer_payments'
    where o.payment_model = 'brokerage'
      and not exists (select 1 from ledger_transactions r where r.natural_key = 'order:' || o.id || ':rebooked')
    group by o.id, o.partner_id, o.environment, o.currency
    having sum(e.amount_cents) <> 0`
  for (const o of wrong) {
    const id = `ltx_rebook_${o.id}`
    yield* sql`
      insert into ledger_transactions (id, natural_key, partner_id, environment, currency, kind, order_id)
      values (${id}, ${`order:${o.id}:rebooked`}, ${o.partner_id}, ${o.environment}, ${o.currency}, 'rebooked', ${o.id})`
    yield* sql`
      insert into ledger_entries (transaction_id, partner_id, environment, account, amount_cents, currency) values
        (${id}, ${o.partner_id}, ${o.environment}, 'brokerage_fee_receivable', ${o.fee}::bigint, ${o.currency}),
        (${id}, ${o.partner_id}, ${o.environment}, 'buyer_payments', -(${o.fee}::bigint), ${o.currency})`
  }
})
