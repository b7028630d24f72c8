import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 18 (performance): an order's listing lock and the checks that must follow it in one round
 * trip instead of two or three (the listing `for update`, then the open-order / other partner's
 * reservation select, then the order's own quote `for update`).
 *
 * The checks must see what the lock's previous holder committed, which a second subquery of the
 * locking statement would not (its snapshot predates the wait). A VOLATILE PL/pgSQL function takes
 * a fresh snapshot for each statement, as `partner_event_append` (0150) relies on, so the selects
 * after the lock see the previous holder's order. No row when the domain is not listed.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create or replace function partner_order_lock_listing(
      p_environment text, p_domain text, p_partner_id text, p_quote_id text
    ) returns table (
      id text, domain text, bin_price_cents bigint, currency text, status text, locked boolean,
      open_order text, other_quote_expires timestamptz, quote_found boolean, quote_used_by_order text
    ) language plpgsql volatile as $$
    declare
      l record;
      v_open_order text;
      v_other_quote_expires timestamptz;
      v_quote_found boolean := false;
      v_quote_used_by_order text;
    begin
      select li.id, li.domain, li.bin_price_cents, li.currency, li.status, li.locked into l
        from listings li where li.environment = p_environment and li.domain = p_domain for update;
      if not found then
        return;
      end if;
      select o.id into v_open_order from partner_orders o
        where o.listing_id = l.id and o.status not in ('REFUNDED', 'CANCELLED') limit 1;
      select q.expires_at into v_other_quote_expires from partner_quotes q
        where q.environment = p_environment and q.domain = p_domain and q.partner_id <> p_partner_id
          and q.expires_at > now() and q.used_by_order is null
        limit 1;
      if p_quote_id is not null then
        select true, q.used_by_order into v_quote_found, v_quote_used_by_order
          from partner_quotes q where q.id = p_quote_id for update;
        v_quote_found := coalesce(v_quote_found, false);
      end if;
      return query select l.id, l.domain, l.bin_price_cents, l.currency, l.status, l.locked,
        v_open_order, v_other_quote_expires, v_quote_found, v_quote_used_by_order;
    end $$`
})
