import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The availability engine's state, shared by every replica:
 * - `availability_cache`: the last upstream answer (registrar/RDAP) per domain, with a lifetime
 *   that depends on its state (short for `available`);
 * - `reserved_names`: local reserved and blocked names. `pattern` is either a whole domain
 *   (`example.com`), a second-level label under every TLD (`nic.*`) or a whole TLD (`*.test`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table availability_cache (
      domain text primary key,
      state text not null,
      result jsonb not null,
      source text not null,
      checked_at timestamptz not null,
      expires_at timestamptz not null
    )`
  yield* sql`create index availability_cache_expiry on availability_cache (expires_at)`
  yield* sql`
    create table reserved_names (
      pattern text primary key,
      kind text not null check (kind in ('reserved', 'blocked')),
      reason text not null,
      created_at timestamptz not null default now()
    )`
})
