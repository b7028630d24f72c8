import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Ledger reads at scale (bench/settlement.ts):
 *
 * - `partner_order_totals`: the sales history's count, gross and commission per partner,
 *   environment, UTC day of creation, status and payment model, maintained by statement-level
 *   triggers on `partner_orders` (one grouped upsert per statement, from its transition tables),
 *   so `GET /transactions` totals read a few rows per day instead of every order. Whole days come
 *   from here, the partial first and last day of a `from`/`to` filter from the orders. Back-filled
 *   from the existing orders; `ledger verify` checks it against them.
 * - `partner_orders_due_partner`: the due orders of one partner (the settlement run claims them
 *   group by group; the older index on completion time alone made each claim scan every due order).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create index if not exists partner_orders_due_partner on partner_orders (partner_id, environment, currency, transfer_completed_at)
    where status = 'TRANSFER_COMPLETED'`

  yield* sql`
    create table partner_order_totals (
      partner_id text not null,
      environment text not null,
      day date not null,
      status text not null,
      payment_model text not null,
      count bigint not null,
      gmv_cents bigint not null,
      commission_cents bigint not null,
      primary key (partner_id, environment, day, status, payment_model)
    )`
  yield* sql.unsafe(`
    create function partner_order_totals_apply() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into partner_order_totals as t (partner_id, environment, day, status, payment_model, count, gmv_cents, commission_cents)
        select partner_id, environment, (created_at at time zone 'UTC')::date, status, payment_model,
               count(*), sum(sale_price_cents), sum(commission_cents)
        from new_rows group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
        on conflict (partner_id, environment, day, status, payment_model) do update
          set count = t.count + excluded.count, gmv_cents = t.gmv_cents + excluded.gmv_cents,
              commission_cents = t.commission_cents + excluded.commission_cents;
      elsif tg_op = 'UPDATE' then
        insert into partner_order_totals as t (partner_id, environment, day, status, payment_model, count, gmv_cents, commission_cents)
        select partner_id, environment, day, status, payment_model, sum(n), sum(gmv), sum(commission)
        from (
          select partner_id, environment, (created_at at time zone 'UTC')::date as day, status, payment_model,
                 -1 as n, -sale_price_cents as gmv, -commission_cents as commission from old_rows
          union all
          select partner_id, environment, (created_at at time zone 'UTC')::date, status, payment_model,
                 1, sale_price_cents, commission_cents from new_rows
        ) d
        group by 1, 2, 3, 4, 5 having sum(n) <> 0 or sum(gmv) <> 0 or sum(commission) <> 0 order by 1, 2, 3, 4, 5
        on conflict (partner_id, environment, day, status, payment_model) do update
          set count = t.count + excluded.count, gmv_cents = t.gmv_cents + excluded.gmv_cents,
              commission_cents = t.commission_cents + excluded.commission_cents;
      else
        insert into partner_order_totals as t (partner_id, environment, day, status, payment_model, count, gmv_cents, commission_cents)
        select partner_id, environment, (created_at at time zone 'UTC')::date, status, payment_model,
               -count(*), -sum(sale_price_cents), -sum(commission_cents)
        from old_rows group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
        on conflict (partner_id, environment, day, status, payment_model) do update
          set count = t.count + excluded.count, gmv_cents = t.gmv_cents + excluded.gmv_cents,
              commission_cents = t.commission_cents + excluded.commission_cents;
      end if;
      return null;
    end $$`)
  yield* sql.unsafe(`create trigger partner_order_totals_insert after insert on partner_orders
    referencing new table as new_rows for each statement execute function partner_order_totals_apply()`)
  yield* sql.unsafe(`create trigger partner_order_totals_update after update on partner_orders
    referencing old table as old_rows new table as new_rows for each statement execute function partner_order_totals_apply()`)
  yield* sql.unsafe(`create trigger partner_order_totals_delete after delete on partner_orders
    referencing old table as old_rows for each statement execute function partner_order_totals_apply()`)
  yield* sql`
    insert into partner_order_totals (partner_id, environment, day, status, payment_model, count, gmv_cents, commission_cents)
    select partner_id, environment, (created_at at time zone 'UTC')::date, status, payment_model,
           count(*), sum(sale_price_cents), sum(commission_cents)
    from partner_orders group by 1, 2, 3, 4, 5`
})
