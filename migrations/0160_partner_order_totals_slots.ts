import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 18 (performance): the sales totals of migration 0105 no longer serialise a partner's orders.
 *
 * Every order insert ran the statement trigger's upsert of one row per partner, environment, UTC
 * day, status and payment model, and held that row's lock until the order's transaction
 * committed (ledger posting, outbox append, stored response and COMMIT later): 50 concurrent
 * orders of one partner measured 7 of 9 busy backends waiting on it (`Lock:transactionid` at the
 * order insert), ~30 order/s on a loaded machine.
 *
 * Now the counts live in `partner_order_totals_slots`, whose key adds a `slot`: the writing
 * backend's pid modulo 64. A backend runs one transaction at a time, so two pool connections
 * only share a row when their pids collide modulo 64 (then those two wait for each other as
 * before), and a key has at most 64 rows. The name `partner_order_totals` becomes a view that
 * sums the slots, with the old columns, so its readers (GET /transactions totals, `ledger
 * verify`) are unchanged; a filter on the key columns is pushed below the grouping. A slot row may go negative (an order inserted through one
 * backend and moved through another); only the sum means anything.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table partner_order_totals rename to partner_order_totals_slots`
  yield* sql`alter table partner_order_totals_slots add column slot smallint not null default 0`
  yield* sql`alter table partner_order_totals_slots drop constraint partner_order_totals_pkey`
  yield* sql`alter table partner_order_totals_slots add primary key (partner_id, environment, day, status, payment_model, slot)`
  yield* sql`
    create view partner_order_totals as
    select partner_id, environment, day, status, payment_model,
           sum(count)::bigint as count, sum(gmv_cents)::bigint as gmv_cents, sum(commission_cents)::bigint as commission_cents
    from partner_order_totals_slots
    group by partner_id, environment, day, status, payment_model`
  // The function of 0105 with the slot in the key; the triggers that call it stay.
  yield* sql.unsafe(`
    create or replace function partner_order_totals_apply() returns trigger language plpgsql as $$
    declare
      s smallint := pg_backend_pid() % 64;
    begin
      if tg_op = 'INSERT' then
        insert into partner_order_totals_slots as t (partner_id, environment, day, status, payment_model, slot, count, gmv_cents, commission_cents)
        select partner_id, environment, (created_at at time zone 'UTC')::date, status, payment_model, s,
               count(*), sum(sale_price_cents), sum(commission_cents)
        from new_rows group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
        on conflict (partner_id, environment, day, status, payment_model, slot) do update
          set count = t.count + excluded.count, gmv_cents = t.gmv_cents + excluded.gmv_cents,
              commission_cents = t.commission_cents + excluded.commission_cents;
      elsif tg_op = 'UPDATE' then
        insert into partner_order_totals_slots as t (partner_id, environment, day, status, payment_model, slot, count, gmv_cents, commission_cents)
        select partner_id, environment, day, status, payment_model, s, sum(n), sum(gmv), sum(commission)
        from (
          select partner_id, environment, (created_at at time zone 'UTC')::date as day, status, payment_model,
                 -1 as n, -sale_price_cents as gmv, -commission_cents as commission from old_rows
          union all
          select partner_id, environment, (created_at at time zone 'UTC')::date, status, payment_model,
                 1, sale_price_cents, commission_cents from new_rows
        ) d
        group by 1, 2, 3, 4, 5 having sum(n) <> 0 or sum(gmv) <> 0 or sum(commission) <> 0 order by 1, 2, 3, 4, 5
        on conflict (partner_id, environment, day, status, payment_model, slot) do update
          set count = t.count + excluded.count, gmv_cents = t.gmv_cents + excluded.gmv_cents,
              commission_cents = t.commission_cents + excluded.commission_cents;
      else
        insert into partner_order_totals_slots as t (partner_id, environment, day, status, payment_model, slot, count, gmv_cents, commission_cents)
        select partner_id, environment, (created_at at time zone 'UTC')::date, status, payment_model, s,
               -count(*), -sum(sale_price_cents), -sum(commission_cents)
        from old_rows group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
        on conflict (partner_id, environment, day, status, payment_model, slot) do update
          set count = t.count + excluded.count, gmv_cents = t.gmv_cents + excluded.gmv_cents,
              commission_cents = t.commission_cents + excluded.commission_cents;
      end if;
      return null;
    end $$`)
})
