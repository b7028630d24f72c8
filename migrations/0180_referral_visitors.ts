import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 15, rule 2 across replicas: the repeat-click memory moves from each process into the
 * database, so every replica (and a restarted one) decides "unique" against the same clicks.
 *
 * `referral_visitors`: one row per link and visitor (SHA-256 of the day's hashed IP and the user
 * agent), with the time of the visitor's latest click on the link and the click last counted
 * unique. The click writer upserts it for a whole batch in the transaction that inserts the
 * clicks (src/referrals/Repo.ts `writeClicks`); the primary key makes two replicas flushing the
 * same visitor at once serialise on the row, so only one of them can count the visitor unique.
 * Rows are dead once their day's IP salt is gone (the visitor key changes with it) and are
 * deleted with the salt. Fill factor 80: each repeat click updates `last_at` in place (HOT).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table referral_visitors (
      link_id text not null,
      visitor text not null,
      last_at timestamptz not null,
      unique_at timestamptz not null,
      unique_click_id text not null,
      primary key (link_id, visitor)
    ) with (fillfactor = 80)`
})
