import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The audit log (src/audit/): who did what, before → after, when, from where. Append-only in the
 * database too: a trigger refuses UPDATE and DELETE row by row, and TRUNCATE for the table, so no
 * code path (nor a hand-typed statement) rewrites history. Ids are time-sortable (`aud_…`), so
 * "newest first" is `order by id desc`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table if not exists audit_log (
      id text primary key,
      at timestamptz not null default now(),
      actor text not null,
      action text not null,
      target text,
      before jsonb,
      after jsonb,
      ip text
    )`
  yield* sql`create index if not exists audit_log_actor on audit_log (actor, id desc)`
  yield* sql`create index if not exists audit_log_action on audit_log (action, id desc)`
  yield* sql`
    create or replace function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_log is append-only: % refused', tg_op using errcode = 'restrict_violation';
    end $$`
  yield* sql`drop trigger if exists audit_log_no_rewrite on audit_log`
  yield* sql`create trigger audit_log_no_rewrite before update or delete on audit_log
             for each row execute function audit_log_append_only()`
  yield* sql`drop trigger if exists audit_log_no_truncate on audit_log`
  yield* sql`create trigger audit_log_no_truncate before truncate on audit_log
             for each statement execute function audit_log_append_only()`
})
