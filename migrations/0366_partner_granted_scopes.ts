import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The scopes a partner's people may give a key in their console, once an operator has set a key's
 * scopes (`partner set-scopes`, /ops/partners/scopes): the union of its live keys' scopes at that
 * moment. Null until then: the scopes of every key it was ever given (partner/members/Keys.ts), so
 * a scope an operator took away does not come back through a revoked key's record.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table partners add column if not exists granted_scopes text[]`
})
