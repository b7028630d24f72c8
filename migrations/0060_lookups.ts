import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Stored WHOIS/RDAP lookups (POST /api/tools/whois answers with the stored row). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table lookups (
      id text primary key,
      domain text not null,
      result jsonb not null,
      raw_source text not null check (raw_source in ('RDAP', 'WHOIS')),
      created_at timestamptz not null default now()
    )`
  yield* sql`create index lookups_domain_created on lookups (domain, created_at desc)`
})
