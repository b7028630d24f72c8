import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A notice may go to an e-mail address without an account (an offer's buyer): `email` names the
 * recipient, `user_id` stays set when an account has that address (it then shows in the account's
 * log too). In development the log is where such a message can be read.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table account_notifications alter column user_id drop not null`
  yield* sql`alter table account_notifications add column if not exists email text`
  yield* sql`create index if not exists account_notifications_email on account_notifications (email, id desc)`
})
