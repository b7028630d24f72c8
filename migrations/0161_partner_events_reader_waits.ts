import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 18 (performance): a partner's writers of events no longer wait for each other; the
 * reader of the feed waits for the writers in flight instead.
 *
 * The rule kept: a reader paging `GET /events` by `after_id` never misses an event that commits
 * after its page with a smaller id. Until now every writer held the partner's advisory lock
 * exclusively from its append until its COMMIT (migration 0150), so a partner's orders ran one at
 * a time through their last round trips and commit. Now:
 *
 * - `partner_event_append` takes the partner's lock SHARED: writers run side by side. Under it,
 *   a fresh snapshot's greatest event id must be below the new id (as before: the caller
 *   retries with a later id otherwise), so an event is greater than every event committed
 *   before its writer took the lock.
 * - `partner_events_after` (the feed) takes the same lock EXCLUSIVELY, which waits until every
 *   writer holding it has committed or rolled back, then reads with a snapshot taken after the
 *   lock (a VOLATILE PL/pgSQL function takes one per statement). A writer that takes the lock
 *   later reads a greatest id at least the reader's last one, so its event sorts after the
 *   page's cursor. The lock is the statement's own (autocommit): released when it returns.
 *
 * Writers that arrive while a reader waits queue behind it (PostgreSQL grants lock requests in
 * order), so a feed read costs that partner's writers at most one transaction's wait.
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
      perform pg_advisory_xact_lock_shared(p_lock_class, p_lock_key);
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
  yield* sql`
    create or replace function partner_events_after(
      p_lock_class integer, p_lock_key integer, p_partner_id text, p_environment text, p_after text, p_limit integer
    ) returns setof partner_events language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock(p_lock_class, p_lock_key);
      return query
        select e.* from partner_events e
        where e.partner_id = p_partner_id and e.environment = p_environment and (p_after is null or e.id > p_after)
        order by e.id limit p_limit;
    end $$`
})
