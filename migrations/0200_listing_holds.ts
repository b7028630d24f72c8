import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 29 (one reservation rule for every sales channel): the hold a partner's quote puts on a
 * listing lives on the listing row itself (`held_by`, `held_until`), where every channel's row
 * lock (`Market.sales.lockForSale`) sees it, instead of in the quotes table that only partner
 * orders read. The rule is src/domain/Reservation.ts.
 *
 * Live, unused quotes are carried over (the latest per listing). The order's one-round-trip lock
 * (0190) now returns the listing's hold instead of looking for another partner's quote; its
 * result type changes, so it is dropped and created again.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table listings add column if not exists held_by text`
  yield* sql`alter table listings add column if not exists held_until timestamptz`
  yield* sql`
    update listings l set held_by = q.partner_id, held_until = q.expires_at
    from (
      select distinct on (environment, domain) environment, domain, partner_id, expires_at
      from partner_quotes
      where expires_at > now() and used_by_order is null
      order by environment, domain, expires_at desc
    ) q
    where l.environment = q.environment and l.domain = q.domain and l.status = 'active'`
  yield* sql`drop function if exists partner_order_lock_listing(text, text, text, text)`
  yield* sql`
    create function partner_order_lock_listing(
      p_environment text, p_domain text, p_quote_id text
    ) returns table (
      id text, domain text, bin_price_cents bigint, currency text, status text, locked boolean,
      held_by text, held_until timestamptz, open_order text, quote_found boolean, quote_used_by_order text
    ) language plpgsql volatile as $$
    declare
      l record;
      v_open_order text;
      v_quote_found boolean := false;
      v_quote_used_by_order text;
    begin
      select li.id, li.domain, li.bin_price_cents, li.currency, li.status, li.locked, li.held_by, li.held_until into l
        from listings li where li.environment = p_environment and li.domain = p_domain for update;
      if not found then
        return;
      end if;
      select o.id into v_open_order from partner_orders o
        where o.listing_id = l.id and o.status not in ('REFUNDED', 'CANCELLED') limit 1;
      if p_quote_id is not null then
        select true, q.used_by_order into v_quote_found, v_quote_used_by_order
          from partner_quotes q where q.id = p_quote_id for update;
        v_quote_found := coalesce(v_quote_found, false);
      end if;
      return query select l.id, l.domain, l.bin_price_cents, l.currency, l.status, l.locked, l.held_by, l.held_until,
        v_open_order, v_quote_found, v_quote_used_by_order;
    end $$`
})
