import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The account's notifications log (docs/notifications.md): what the service told a signed-in
 * user (a cart's outcome, …), append-only, read with GET /api/account/notifications. `dedupe_key`
 * makes a notice written by a retried job appear once.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table if not exists account_notifications (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      kind text not null,
      subject text not null,
      message text not null,
      dedupe_key text not null unique,
      created_at timestamptz not null default now()
    )`
  yield* sql`create index if not exists account_notifications_user on account_notifications (user_id, id desc)`
})
