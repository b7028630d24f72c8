import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Durable background jobs (src/platform/jobs/Jobs.ts): queued → running → done | failed, claimed with
 * FOR UPDATE SKIP LOCKED by worker fibers on any replica, leased so a dead worker's job is
 * claimed again.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table jobs (
      id text primary key,
      kind text not null,
      status text not null check (status in ('queued', 'running', 'done', 'failed')),
      input jsonb not null,
      result jsonb,
      error text,
      progress jsonb,
      attempts integer not null default 0,
      max_attempts integer not null,
      run_after timestamptz not null default now(),
      locked_by text,
      locked_until timestamptz,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz not null default now(),
      retention_seconds integer not null,
      expires_at timestamptz not null
    )`
  yield* sql`create index jobs_claimable on jobs (kind, created_at) where status in ('queued', 'running')`
  yield* sql`create index jobs_expires on jobs (expires_at) where status in ('done', 'failed')`
})
