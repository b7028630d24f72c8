import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 29 item 8: a visitor's repeated checkouts of one domain count once in the referral
 * funnel. `referral_checkouts.visitor` is the browser's first click id, carried by the `mk_ref`
 * cookie across its later clicks (src/referrals/Referrals.ts); one row per link, visitor and
 * domain (rows written before this column, visitor null, are left as they were counted).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table referral_checkouts add column if not exists visitor text`
  yield* sql`create unique index if not exists referral_checkouts_visitor
             on referral_checkouts (link_id, visitor, domain) where visitor is not null`
})
