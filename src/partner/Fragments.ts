/**
 * SQL fragments over `partners` (the partner root owns the table) for statements of other slices
 * that must stay one round trip: the owner writes the SQL, the caller places it, as market's
 * `holdFragment` does for `listings`. POST /orders freezes the partner's commission rate in its
 * insert (src/partner/orders/RepoOrder.ts); the checkout page reads the seller's name with its
 * session (src/checkout/Repo.ts).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"

/** The partner's terms as a from-item `p` with `p.commission_bps`: no row when there is no such partner. */
export const partnerTerms = (sql: SqlClient.SqlClient, partnerId: string): Fragment =>
  sql`(select commission_bps from partners where id = ${partnerId}) p`

/** The name of the partner whose id is `partnerId` (a column of the caller's row), or null. */
export const partnerNameOf = (sql: SqlClient.SqlClient, partnerId: Fragment): Fragment =>
  sql`(select name from partners where id = ${partnerId})`
