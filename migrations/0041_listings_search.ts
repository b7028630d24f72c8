import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Marketplace browsing (GET /api/market/listings):
 * - `q` is a substring filter on the domain: a trigram GIN index answers `domain ilike '%q%'`;
 * - the price sorts are keyset-paginated with listings without a buy-now price last in both
 *   directions (their key is -1 descending, 2^53 - 1 ascending: the largest integer JavaScript
 *   holds exactly), so each direction has an index on its own sort key plus the id tie-breaker.
 *   A page at any depth is then one index range scan.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`create extension if not exists pg_trgm`
  yield* sql`create index listings_domain_trgm on listings using gin (domain gin_trgm_ops)`
  yield* sql`create index listings_domain_unicode_trgm on listings using gin (domain_unicode gin_trgm_ops)`
  yield* sql`create index listings_price_asc_key on listings
    (environment, status, (coalesce(bin_price_cents, 9007199254740991)), id)`
  yield* sql`create index listings_price_desc_key on listings
    (environment, status, (coalesce(bin_price_cents, -1)) desc, id desc)`
  yield* sql`create index listings_demo on listings (is_demo) where is_demo`
})
