import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 34 item 3 (the delivery log): what the receiver answered, so a partner sees why its
 * endpoint refused a delivery without reading its own server's logs. `response_body` holds at
 * most the first 4 KiB of the answer (UTF-8, lossy), null when none was read (timeout, reset, or
 * an attempt from before this migration); `response_body_truncated` says the answer was longer,
 * which the stored text alone cannot tell (a cut character is dropped, so its length varies).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table partner_webhook_attempts add column if not exists response_body text`
  yield* sql`alter table partner_webhook_attempts
             add column if not exists response_body_truncated boolean not null default false`
})
