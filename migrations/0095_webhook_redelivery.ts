import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhook tooling (issue 19, part 6): at most one pending delivery per event, so a redelivery
 * request (or two racing ones) never queues an event twice (`insert … on conflict do nothing`);
 * and the delivery log's newest-first scan per partner endpoint.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create unique index if not exists partner_webhook_deliveries_one_pending
    on partner_webhook_deliveries (event_id) where status = 'pending'`
  yield* sql`
    create index if not exists partner_webhook_deliveries_log
    on partner_webhook_deliveries (partner_id, environment, id)`
})
