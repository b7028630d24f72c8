import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhook delivery order and fairness (issue 10, item 10): each delivery carries its ordering key
 * (the order's public id for order events), so a later event of an order waits while an earlier
 * one is pending; partial indexes make the claim query's per-endpoint scan (oldest due first),
 * per-order check and per-endpoint in-flight count cheap.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table partner_webhook_deliveries add column if not exists ordering_key text`
  yield* sql`
    update partner_webhook_deliveries d set ordering_key = e.data -> 'order' ->> 'public_id'
    from partner_events e
    where e.id = d.event_id and d.status = 'pending'`
  yield* sql`
    create index if not exists partner_webhook_deliveries_ordering
    on partner_webhook_deliveries (ordering_key, event_id) where status = 'pending'`
  yield* sql`
    create index if not exists partner_webhook_deliveries_endpoint
    on partner_webhook_deliveries (partner_id, environment, next_attempt_at, id) where status = 'pending'`
  yield* sql`
    create index if not exists partner_webhook_deliveries_leased
    on partner_webhook_deliveries (partner_id, environment) where status = 'pending' and locked_until is not null`
})
