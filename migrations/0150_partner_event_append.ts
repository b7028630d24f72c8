import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 18 (performance): the outbox append of one partner event in one round trip instead of
 * four (lock, max id, event, webhook delivery). Order transactions of one partner serialise on
 * this lock until they commit, so every round trip taken while holding it is paid by all of them.
 *
 * `partner_event_append` takes the per-partner transaction lock, then reads the partner's
 * greatest event id (a VOLATILE PL/pgSQL function takes a fresh snapshot for each statement, so
 * it sees events committed by the lock's previous holder), and inserts the event and its webhook
 * delivery when the candidate id is greater. Otherwise it inserts nothing and returns that
 * greatest id, for the caller to retry with a later one (the lock stays held: it is re-entrant).
 * Returns null when inserted.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create or replace function partner_event_append(
      p_lock_class integer, p_lock_key integer, p_id text, p_partner_id text, p_environment text,
      p_type text, p_data jsonb, p_delivery_id text, p_ordering_key text
    ) returns text language plpgsql volatile as $$
    declare
      last_id text;
    begin
      perform pg_advisory_xact_lock(p_lock_class, p_lock_key);
      select max(id) into last_id from partner_events where partner_id = p_partner_id;
      if last_id is not null and p_id <= last_id then
        return last_id;
      end if;
      insert into partner_events (id, partner_id, environment, type, data)
        values (p_id, p_partner_id, p_environment, p_type, p_data);
      insert into partner_webhook_deliveries (id, event_id, partner_id, environment, ordering_key)
        select p_delivery_id, p_id, partner_id, environment, p_ordering_key from partner_webhooks
        where partner_id = p_partner_id and environment = p_environment and active;
      return null;
    end $$`
})
