/**
 * The audit log: who did what, before → after, when and from where, for every operator action
 * (admin API, CLI). Append-only (the table refuses UPDATE and DELETE).
 *
 * Contract: `audited` is the one way an action is recorded. By default the action and its record
 * share ONE transaction (an action that fails records nothing; a record that cannot be written
 * rolls the action back); a caller already inside a transaction gets a savepoint of it. Actions
 * that must not run inside an outer transaction (the settlement and payout runs hold a session
 * lock on their own connection and commit statement by statement; refunds call the payment
 * provider) pass `transactional: false`: they are recorded right after they succeed.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { transactionOf } from "../platform/db/SqlTransaction.js"
import { makeId } from "../platform/Ids.js"
import { type AuditFilter, AuditRepo, type AuditRow } from "./Repo.js"

/** One entry as `audit list --json` and GET /api/admin/audit show it (CONTRACT.md, "Audit log"). */
export interface AuditRecord {
  readonly id: string
  readonly at: string
  readonly actor: string
  readonly action: string
  readonly target: string | null
  readonly before: unknown
  readonly after: unknown
  readonly ip: string | null
}

export interface AuditEntry {
  readonly actor: string
  readonly action: string
  readonly target: string | null
  readonly before: unknown
  readonly after: unknown
  readonly ip: string | null
}

/** Who acts. */
export interface AuditActor {
  readonly actor: string
  readonly ip: string | null
}

/** What is done: its name (`order.clear`), its target, how to read the state before, what after is. */
export interface AuditAction<A, E2 = never, R2 = never> {
  readonly action: string
  readonly target: string | null
  readonly before?: Effect.Effect<unknown, E2, R2>
  /** The state after, from the action's result (default: the result itself). */
  readonly after?: (a: A) => unknown
  readonly transactional?: boolean
}

/** A value as the JSON the log keeps (Dates as ISO strings); undefined and null are "nothing". */
const jsonText = (value: unknown): string | null => value === undefined || value === null ? null : JSON.stringify(value)

const view = (r: AuditRow): AuditRecord => ({
  id: r.id,
  at: r.at.toISOString(),
  actor: r.actor,
  action: r.action,
  target: r.target,
  before: r.before ?? null,
  after: r.after ?? null,
  ip: r.ip
})

const make = Effect.gen(function*() {
  const repo = yield* AuditRepo
  const transaction = transactionOf(yield* SqlClient.SqlClient)
  const record = (e: AuditEntry) =>
    Effect.map(
      repo.insert({
        id: makeId("aud"),
        actor: e.actor,
        action: e.action,
        target: e.target,
        before: jsonText(e.before),
        after: jsonText(e.after),
        ip: e.ip
      }),
      view
    )
  const audited = <A, E, R, E2 = never, R2 = never>(
    who: AuditActor,
    what: AuditAction<A, E2, R2>,
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | E2, R | R2> => {
    const run = Effect.gen(function*() {
      const before = what.before === undefined ? null : yield* what.before
      const result = yield* effect
      const after = what.after === undefined ? result : what.after(result)
      yield* record({ ...who, action: what.action, target: what.target, before, after })
      return result
    })
    return what.transactional === false ? run : transaction(run)
  }
  return {
    record,
    audited,
    /** Newest first. */
    list: (filter: AuditFilter) => Effect.map(repo.list(filter), (rows) => rows.map(view))
  }
})

export class AuditLog extends Effect.Service<AuditLog>()("AuditLog", {
  effect: make,
  dependencies: [AuditRepo.Default]
}) {}
