import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An account's role (identity/accounts): `member` (every account so far) or `operator`, who may use
 * the operator console at /ops (docs/consoles.md#operator-console). Set by `user create --role`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table users add column if not exists role text not null default 'member'`
  yield* sql`alter table users drop constraint if exists users_role_known`
  yield* sql`alter table users add constraint users_role_known check (role in ('member', 'operator'))`
})
