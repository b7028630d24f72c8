/**
 * Singleton work across replicas: a PostgreSQL session advisory lock held on a reserved
 * connection for the duration of the work. `runExclusive` skips (returns None) when another
 * replica holds the lock; `schedule` runs an effect at most once per interval across all
 * replicas, recording each run in the `schedules` table.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Clock, Duration, Effect, Option, Schedule, Schema } from "effect"

/** A stable 31-bit lock key for a name (FNV-1a). */
export const lockKey = (name: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 1) & 0x7fffffff
}

export const runExclusive = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
  Effect.scoped(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // Uninterruptibly: @effect/sql-pg's `reserve` hands the pooled client to the fiber from
      // pg-pool's connect callback and only then registers its release; a fiber interrupted while
      // the connect is pending (a server stopped during its boot-time runs) never registers it,
      // and the client stays checked out for ever, so `pool.end()` (shutdown) never returns.
      // Waiting for the connect (bounded by DB_ACQUIRE_TIMEOUT) keeps the release in our scope.
      const conn = yield* Effect.uninterruptible(sql.reserve)
      const key = lockKey(name)
      const [row] = yield* conn.executeValues(`select pg_try_advisory_lock(${key})`, [])
      if (row?.[0] !== true) return Option.none<A>()
      return yield* effect.pipe(
        Effect.map(Option.some),
        Effect.ensuring(conn.executeValues(`select pg_advisory_unlock(${key})`, []).pipe(Effect.ignore))
      )
    })
  )

/**
 * Runs `effect` once per `interval` across replicas. Every replica wakes up every `tick`; the one
 * that gets the lock checks the last run and runs the job only when it is due.
 */
export const schedule = <A, E, R>(
  name: string,
  interval: Duration.DurationInput,
  effect: Effect.Effect<A, E, R>,
  options?: { readonly tick?: Duration.DurationInput }
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const intervalMs = Duration.toMillis(interval)
    const lastRun = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ last_run_at: Schema.NullOr(Schema.DateFromSelf) }),
      execute: (job) => sql`select last_run_at from schedules where name = ${job}`
    })
    const attempt = runExclusive(
      `schedule:${name}`,
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const last = Option.flatMap(yield* lastRun(name), (row) => Option.fromNullable(row.last_run_at))
        if (Option.isSome(last) && now - last.value.getTime() < intervalMs) return
        const started = Date.now()
        const exit = yield* Effect.exit(
          effect.pipe(Effect.withSpan(`schedule ${name}`, { root: true, captureStackTrace: false }))
        )
        const error = exit._tag === "Failure" ? String(exit.cause).slice(0, 2000) : null
        yield* sql`
          insert into schedules (name, last_run_at, last_status, last_error, last_duration_ms)
          values (${name}, ${new Date(now)}, ${exit._tag === "Success" ? "ok" : "failed"}, ${error}, ${
          Date.now() - started
        })
          on conflict (name) do update set last_run_at = excluded.last_run_at, last_status = excluded.last_status,
            last_error = excluded.last_error, last_duration_ms = excluded.last_duration_ms`
        if (error) yield* Effect.logWarning(`scheduled job ${name} failed`).pipe(Effect.annotateLogs({ error }))
      })
    ).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`schedule ${name} could not run`, cause)))
    const tick = options?.tick ?? Duration.min(Duration.decode(interval), Duration.minutes(1))
    return yield* attempt.pipe(Effect.repeat(Schedule.spaced(tick)), Effect.asVoid)
  })
