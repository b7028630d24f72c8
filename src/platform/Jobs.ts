/**
 * Durable background jobs in PostgreSQL, reusable by any capability.
 *
 *   const jobs = yield* Jobs
 *   const job = yield* jobs.enqueue("tool:site-check", { url })          // queued
 *   yield* jobs.work("tool:site-check", (job) => handler(job.input, job.progress))  // scoped workers
 *   const state = yield* jobs.get(job.id)                                 // poll
 *
 * Lifecycle: `queued` → `running` → `done` | `failed`, with `attempts`, `created_at`,
 * `started_at`, `finished_at`, `progress` (any JSON the handler reports) and `result`/`error`.
 *
 * - Claiming: `UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1)`, so any number of
 *   worker fibers on any number of replicas never claim one job twice.
 * - Leases: a claim holds the job for `lease`; the worker renews it while the handler runs. A job
 *   whose lease lapsed (its process died, or stalled) is claimed again; after `maxAttempts`
 *   claims it is `failed`. Only the lease holder can report progress or finish the job, so a
 *   worker that lost its lease cannot overwrite the new holder's outcome, and a worker that
 *   notices it lost the lease stops its handler.
 * - A handler failure is retried (back-off 1 s, 4 s, 16 s…) until `maxAttempts`, then `failed`
 *   with the error message; `JobFailure` fails at once without retrying (bad input…).
 * - Shutdown: an interrupted worker leaves its job to the lease (exactly like a crash), so the
 *   job is finished by the next claimant.
 * - Retention: finished jobs are deleted `retention` after they finish (`JobsJanitorLive`).
 * - Wake-up: workers poll (`pollInterval`), and are woken at once by an enqueue in the same
 *   process. An enqueue inside a transaction wakes them before its commit, when they cannot see
 *   the job yet: call `wake(kind)` after the commit.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Context, Data, Duration, Effect, Fiber, Layer, Option, Queue, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as Os from "node:os"
import { makeId } from "./Ids.js"
import { janitorOf } from "./Janitor.js"

export type JobStatus = "queued" | "running" | "done" | "failed"

export interface JobState {
  readonly id: string
  readonly kind: string
  readonly status: JobStatus
  readonly input: unknown
  readonly result: unknown
  readonly error: string | null
  readonly progress: unknown
  readonly attempts: number
  readonly maxAttempts: number
  readonly createdAt: Date
  readonly startedAt: Date | null
  readonly finishedAt: Date | null
  readonly updatedAt: Date
}

/** A handler failure that must not be retried. */
export class JobFailure extends Data.TaggedError("JobFailure")<{ readonly message: string }> {}

export interface RunningJob<I = unknown> {
  readonly id: string
  readonly input: I
  readonly attempt: number
  /** Stores progress (visible to pollers); fails silently when the lease was lost. */
  readonly progress: (value: unknown) => Effect.Effect<void>
}

export interface EnqueueOptions {
  /** Claims before the job is `failed`. Default 3. */
  readonly maxAttempts?: number
  /** How long the job is kept after it finishes. */
  readonly retention?: Duration.DurationInput
}

export interface WorkOptions {
  /** Handler fibers of this kind in this process. Default 2. */
  readonly concurrency?: number
  readonly pollInterval?: Duration.DurationInput
}

interface Row {
  id: string
  kind: string
  status: JobStatus
  input: unknown
  result: unknown
  error: string | null
  progress: unknown
  attempts: number
  max_attempts: number
  created_at: Date
  started_at: Date | null
  finished_at: Date | null
  updated_at: Date
}

/** jsonb columns arrive parsed (pg type parser). */
const parseJson = (v: unknown) => v

const toState = (r: Row): JobState => ({
  id: r.id,
  kind: r.kind,
  status: r.status,
  input: parseJson(r.input),
  result: parseJson(r.result),
  error: r.error,
  progress: parseJson(r.progress),
  attempts: r.attempts,
  maxAttempts: r.max_attempts,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  updatedAt: r.updated_at
})

const ms = (d: Duration.DurationInput) => `${Duration.toMillis(d)} milliseconds`

export const makeJobs = (
  options: { readonly lease: Duration.DurationInput; readonly retention: Duration.DurationInput }
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workerId = `${Os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`
    const wakers = new Map<string, Queue.Queue<void>>()
    const lease = Duration.decode(options.lease)

    const enqueue = (kind: string, input: unknown, o: EnqueueOptions = {}): Effect.Effect<JobState, SqlError> =>
      Effect.gen(function*() {
        const id = makeId("job")
        const retention = Duration.decode(o.retention ?? options.retention)
        const [row] = yield* sql<Row>`
          insert into jobs (id, kind, status, input, max_attempts, retention_seconds, expires_at)
          values (${id}, ${kind}, 'queued', ${JSON.stringify(input)}, ${o.maxAttempts ?? 3},
                  ${Math.ceil(Duration.toSeconds(retention))}, now() + ${ms(retention)}::interval + interval '1 day')
          returning *`
        yield* wake(kind)
        return toState(row)
      })

    /** Wakes an idle worker of `kind` in this process, to claim at once what was committed. */
    const wake = (kind: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        const waker = wakers.get(kind)
        return waker ? Effect.asVoid(Queue.offer(waker, undefined)) : Effect.void
      })

    const get = (id: string): Effect.Effect<Option.Option<JobState>, SqlError> =>
      sql<Row>`select * from jobs where id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toState))
      )

    /** Jobs whose holders died too often: failed for good. */
    const failExhausted = (kind: string) =>
      sql`update jobs set status = 'failed', error = 'the job''s worker stopped ' || attempts || ' times; giving up',
            finished_at = now(), updated_at = now(), locked_by = null, locked_until = null,
            expires_at = now() + make_interval(secs => retention_seconds)
          where kind = ${kind} and status = 'running' and locked_until < now() and attempts >= max_attempts`

    const claim = (kind: string) =>
      sql<Row>`
        update jobs set status = 'running', attempts = attempts + 1, locked_by = ${workerId},
          locked_until = now() + ${ms(lease)}::interval, started_at = coalesce(started_at, now()), updated_at = now()
        where id = (
          select id from jobs
          where kind = ${kind}
            and ((status = 'queued' and run_after <= now()) or (status = 'running' and locked_until < now()))
          order by created_at
          limit 1
          for update skip locked
        )
        returning *`.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toState)))

    const renew = (id: string) =>
      sql`update jobs set locked_until = now() + ${ms(lease)}::interval
          where id = ${id} and locked_by = ${workerId} and status = 'running' returning id`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const finish = (id: string, outcome: { status: "done"; result: unknown } | { status: "failed"; error: string }) =>
      sql`update jobs set status = ${outcome.status},
            result = ${outcome.status === "done" ? JSON.stringify(outcome.result ?? null) : null},
            error = ${outcome.status === "failed" ? outcome.error : null},
            finished_at = now(), updated_at = now(), locked_by = null, locked_until = null,
            expires_at = now() + make_interval(secs => retention_seconds)
          where id = ${id} and locked_by = ${workerId} and status = 'running'`

    const retryLater = (id: string, attempt: number, error: string) =>
      sql`update jobs set status = 'queued', error = ${error}, locked_by = null, locked_until = null, updated_at = now(),
            run_after = now() + ${ms(Duration.seconds(4 ** (attempt - 1)))}::interval
          where id = ${id} and locked_by = ${workerId} and status = 'running'`

    const progress = (id: string) => (value: unknown) =>
      sql`update jobs set progress = ${JSON.stringify(value ?? null)}, updated_at = now()
          where id = ${id} and locked_by = ${workerId} and status = 'running'`.pipe(Effect.ignore)

    const runOne = <I>(job: JobState, handler: (job: RunningJob<I>) => Effect.Effect<unknown, unknown>) =>
      Effect.gen(function*() {
        const running = yield* Effect.fork(
          handler({ id: job.id, input: job.input as I, attempt: job.attempts, progress: progress(job.id) }).pipe(
            Effect.exit
          )
        )
        // Renew the lease while the handler runs; stop the handler if the lease was lost.
        const heartbeat = yield* Effect.fork(
          Effect.gen(function*() {
            while (true) {
              yield* Effect.sleep(Duration.millis(Math.max(50, Duration.toMillis(lease) / 3)))
              const held = yield* renew(job.id).pipe(Effect.orElseSucceed(() => true))
              if (!held) {
                yield* Effect.logWarning("job lease lost; stopping its handler").pipe(
                  Effect.annotateLogs({ job: job.id })
                )
                yield* Fiber.interrupt(running)
                return
              }
            }
          })
        )
        const exit = yield* Fiber.join(running).pipe(Effect.ensuring(Fiber.interrupt(heartbeat)))
        if (exit._tag === "Success") return yield* finish(job.id, { status: "done", result: exit.value })
        if (Cause.isInterruptedOnly(exit.cause)) return // lease lost: the new holder finishes the job
        const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
        if (failure === undefined) {
          yield* Effect.logError("job handler defect", exit.cause).pipe(Effect.annotateLogs({ job: job.id }))
        }
        const message = failure instanceof JobFailure
          ? failure.message
          : failure !== undefined
          ? String((failure as any)?.message ?? failure)
          : "unexpected error"
        if (!(failure instanceof JobFailure) && job.attempts < job.maxAttempts) {
          return yield* retryLater(job.id, job.attempts, message)
        }
        return yield* finish(job.id, { status: "failed", error: message })
      })

    /** Starts `concurrency` worker fibers for `kind` in the current scope. */
    const work = <I>(
      kind: string,
      handler: (job: RunningJob<I>) => Effect.Effect<unknown, unknown>,
      o: WorkOptions = {}
    ): Effect.Effect<void, never, Scope.Scope> =>
      Effect.gen(function*() {
        const waker = yield* Queue.sliding<void>(1)
        wakers.set(kind, waker)
        yield* Effect.addFinalizer(() => Effect.sync(() => wakers.delete(kind)))
        const poll = Duration.decode(o.pollInterval ?? Duration.seconds(1))
        const loop = Effect.gen(function*() {
          while (true) {
            yield* failExhausted(kind).pipe(Effect.ignore)
            const job = yield* claim(kind).pipe(Effect.orElseSucceed(() => Option.none<JobState>()))
            if (Option.isSome(job)) {
              yield* runOne(job.value, handler).pipe(
                Effect.withSpan(`job ${kind}`, {
                  root: true,
                  captureStackTrace: false,
                  attributes: { "job.id": job.value.id, "job.kind": kind, "job.attempt": job.value.attempts }
                }),
                Effect.catchAllCause((cause) => Effect.logWarning("job bookkeeping failed", cause))
              )
              continue
            }
            // Nothing to do: wait for a local enqueue or the next poll.
            yield* Queue.take(waker).pipe(Effect.timeout(poll), Effect.ignore)
          }
        })
        for (let i = 0; i < (o.concurrency ?? 2); i++) yield* Effect.forkScoped(loop)
      })

    /** Deletes finished jobs past their retention. */
    const purge = sql`delete from jobs where status in ('done', 'failed') and expires_at < now()`

    return { enqueue, wake, get, work, purge, workerId }
  })

export type JobsShape = Effect.Effect.Success<ReturnType<typeof makeJobs>>

export class Jobs extends Context.Tag("app/Jobs")<Jobs, JobsShape>() {}

export const JobsLive = (
  options: { readonly lease: Duration.DurationInput; readonly retention: Duration.DurationInput }
) => Layer.effect(Jobs, makeJobs(options))

/** Deletes finished jobs past their retention; any replica may run it. */
export const JobsJanitorLive = janitorOf("job", "10 minutes", Jobs, (jobs) => jobs.purge)
