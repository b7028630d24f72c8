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
 * The claim loop, leases, retries and back-off are the engine of DurableQueue.ts (which the webhook
 * deliveries run on too); this file is the `jobs` table's side of it.
 *
 * - Claiming: `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT n)`, so any number of
 *   workers on any number of replicas never claim one job twice; oldest first.
 * - Leases: a claim holds the job for `lease`; the worker renews it while the handler runs. A job
 *   whose lease lapsed (its process died, or stalled) is claimed again; after `maxAttempts`
 *   claims it is `failed`. Only the lease holder can report progress or finish the job, so a
 *   worker that lost its lease cannot overwrite the new holder's outcome, and a worker that
 *   notices it lost the lease stops its handler.
 * - A handler failure is retried (back-off 1 s, 4 s, 16 s…) until `maxAttempts`, then `failed`
 *   with the error message; `JobFailure` fails at once without retrying (bad input…).
 * - Shutdown: an interrupted handler leaves its job to the lease (exactly like a crash), so the
 *   job is finished by the next claimant; a handler that had already answered is settled.
 * - Retention: finished jobs are deleted `retention` after they finish (`JobsJanitorLive`).
 * - Wake-up: workers poll (`pollInterval`), and are woken at once by an enqueue in the same
 *   process. An enqueue inside a transaction wakes them before its commit, when they cannot see
 *   the job yet: call `wake(kind)` after the commit.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Context, Data, Duration, Effect, Layer, Option, Predicate, Schema, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as Os from "node:os"
import { makeId } from "../Ids.js"
import { Backoff, type Outcome, runWorkers } from "./DurableQueue.js"
import { janitorOf } from "./Janitor.js"

export const JobStatus = Schema.Literal("queued", "running", "done", "failed")
export type JobStatus = typeof JobStatus.Type

/** A `jobs` row as callers see it (jsonb columns arrive parsed by the pg type parser). */
export const JobState = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  status: JobStatus,
  input: Schema.Unknown,
  result: Schema.Unknown,
  error: Schema.NullOr(Schema.String),
  progress: Schema.Unknown,
  attempts: Schema.Number,
  maxAttempts: Schema.propertySignature(Schema.Number).pipe(Schema.fromKey("max_attempts")),
  createdAt: Schema.propertySignature(Schema.DateFromSelf).pipe(Schema.fromKey("created_at")),
  startedAt: Schema.propertySignature(Schema.NullOr(Schema.DateFromSelf)).pipe(Schema.fromKey("started_at")),
  finishedAt: Schema.propertySignature(Schema.NullOr(Schema.DateFromSelf)).pipe(Schema.fromKey("finished_at")),
  updatedAt: Schema.propertySignature(Schema.DateFromSelf).pipe(Schema.fromKey("updated_at"))
})
export type JobState = typeof JobState.Type

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

const ms = (d: Duration.DurationInput) => `${Duration.toMillis(d)} milliseconds`

/** Retries of a failed run: 1 s, 4 s, 16 s… */
const retryDelay = Backoff.exponential(Duration.seconds(1), 4)

const messageOf = (failure: unknown): string =>
  failure instanceof JobFailure
    ? failure.message
    : String((Predicate.hasProperty(failure, "message") ? failure.message : undefined) ?? failure)

const Id = Schema.Struct({ id: Schema.String })

export const makeJobs = (
  options: { readonly lease: Duration.DurationInput; readonly retention: Duration.DurationInput }
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workerId = `${Os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`
    const wakers = new Map<string, Effect.Effect<void>>()
    const lease = Duration.decode(options.lease)

    const insert = SqlSchema.single({
      Request: Schema.Struct({
        id: Schema.String,
        kind: Schema.String,
        input: Schema.String,
        maxAttempts: Schema.Number,
        retention: Schema.DurationFromSelf
      }),
      Result: JobState,
      execute: (r) =>
        sql`
          insert into jobs (id, kind, status, input, max_attempts, retention_seconds, expires_at)
          values (${r.id}, ${r.kind}, 'queued', ${r.input}, ${r.maxAttempts},
                  ${Math.ceil(Duration.toSeconds(r.retention))}, now() + ${
          ms(r.retention)
        }::interval + interval '1 day')
          returning *`
    })

    const byId = SqlSchema.findOne({
      Request: Schema.String,
      Result: JobState,
      execute: (id) => sql`select * from jobs where id = ${id}`
    })

    /**
     * One statement a poll: claims up to `limit` due jobs of `kind` (queued and due, or running
     * with a lapsed lease), and fails for good the lapsed ones whose holders died too often
     * (`attempts >= max_attempts`; the two sets of rows are disjoint). An idle worker's poll is
     * this one statement.
     */
    const claimRows = SqlSchema.findAll({
      Request: Schema.Struct({ kind: Schema.String, limit: Schema.Number }),
      Result: JobState,
      execute: (r) =>
        sql`
          with exhausted as (
            update jobs set status = 'failed', error = 'the job''s worker stopped ' || attempts || ' times; giving up',
              finished_at = now(), updated_at = now(), locked_by = null, locked_until = null,
              expires_at = now() + make_interval(secs => retention_seconds)
            where kind = ${r.kind} and status = 'running' and locked_until < now() and attempts >= max_attempts
            returning id
          )
          update jobs set status = 'running', attempts = attempts + 1, locked_by = ${workerId},
            locked_until = now() + ${ms(lease)}::interval, started_at = coalesce(started_at, now()), updated_at = now()
          where id in (
            select id from jobs
            where kind = ${r.kind}
              and ((status = 'queued' and run_after <= now())
                or (status = 'running' and locked_until < now() and attempts < max_attempts))
            order by created_at
            limit ${r.limit}
            for update skip locked
          )
          returning *`
    })

    const renew = SqlSchema.findOne({
      Request: Schema.String,
      Result: Id,
      execute: (id) =>
        sql`update jobs set locked_until = now() + ${ms(lease)}::interval
            where id = ${id} and locked_by = ${workerId} and status = 'running' returning id`
    })

    const finish = SqlSchema.void({
      Request: Schema.Struct({
        id: Schema.String,
        status: Schema.Literal("done", "failed"),
        result: Schema.NullOr(Schema.String),
        error: Schema.NullOr(Schema.String)
      }),
      execute: (r) =>
        sql`update jobs set status = ${r.status}, result = ${r.result}, error = ${r.error},
              finished_at = now(), updated_at = now(), locked_by = null, locked_until = null,
              expires_at = now() + make_interval(secs => retention_seconds)
            where id = ${r.id} and locked_by = ${workerId} and status = 'running'`
    })

    const retryLater = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, delay: Schema.DurationFromSelf, error: Schema.String }),
      execute: (r) =>
        sql`update jobs set status = 'queued', error = ${r.error}, locked_by = null, locked_until = null, updated_at = now(),
              run_after = now() + ${ms(r.delay)}::interval
            where id = ${r.id} and locked_by = ${workerId} and status = 'running'`
    })

    const saveProgress = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, progress: Schema.String }),
      execute: (r) =>
        sql`update jobs set progress = ${r.progress}, updated_at = now()
            where id = ${r.id} and locked_by = ${workerId} and status = 'running'`
    })

    const purgeRows = SqlSchema.void({
      Request: Schema.Void,
      execute: () => sql`delete from jobs where status in ('done', 'failed') and expires_at < now()`
    })

    /** Wakes an idle worker of `kind` in this process, to claim at once what was committed. */
    const wake = (kind: string): Effect.Effect<void> => Effect.suspend(() => wakers.get(kind) ?? Effect.void)

    const enqueue = (kind: string, input: unknown, o: EnqueueOptions = {}): Effect.Effect<JobState> =>
      Effect.gen(function*() {
        const job = yield* insert({
          id: makeId("job"),
          kind,
          input: JSON.stringify(input),
          maxAttempts: o.maxAttempts ?? 3,
          retention: Duration.decode(o.retention ?? options.retention)
        })
        yield* wake(kind)
        return job
      }).pipe(Effect.orDie)

    const get = (id: string): Effect.Effect<Option.Option<JobState>> => Effect.orDie(byId(id))

    const settle = (job: JobState, outcome: Outcome<unknown, unknown>) =>
      outcome._tag === "Done"
        ? finish({ id: job.id, status: "done", result: JSON.stringify(outcome.value ?? null), error: null })
        : outcome._tag === "Retry"
        ? retryLater({ id: job.id, delay: outcome.delay, error: messageOf(outcome.failure) })
        : finish({ id: job.id, status: "failed", result: null, error: messageOf(outcome.failure) })

    /** Starts the workers of `kind` (`concurrency` at once) in the current scope. */
    const work = <I>(
      kind: string,
      handler: (job: RunningJob<I>) => Effect.Effect<unknown, unknown>,
      o: WorkOptions = {}
    ): Effect.Effect<void, never, Scope.Scope> =>
      Effect.gen(function*() {
        const workers = yield* runWorkers<JobState, unknown, unknown>({
          name: "job",
          store: {
            claim: (limit) => Effect.orDie(claimRows({ kind, limit })),
            renew: (job) => renew(job.id).pipe(Effect.map(Option.isSome), Effect.orDie),
            settle: (job, outcome) => Effect.orDie(settle(job, outcome))
          },
          // A job may be stopped anywhere (shutdown, lease lost): it is settled by the next holder.
          handle: (job) =>
            Effect.interruptible(handler({
              id: job.id,
              input: job.input as I,
              attempt: job.attempts,
              progress: (value) =>
                saveProgress({ id: job.id, progress: JSON.stringify(value ?? null) }).pipe(Effect.ignore)
            })),
          retryAfter: (job, failure) =>
            failure instanceof JobFailure || job.attempts >= job.maxAttempts
              ? Option.none()
              : Option.some(retryDelay(job.attempts)),
          onDefect: () => Option.some(new Error("unexpected error")),
          lease,
          concurrency: o.concurrency ?? 2,
          pollInterval: o.pollInterval ?? Duration.seconds(1),
          id: (job) => job.id,
          span: (job) => ({
            name: `job ${kind}`,
            attributes: { "job.id": job.id, "job.kind": kind, "job.attempt": job.attempts }
          })
        })
        wakers.set(kind, workers.wake)
        yield* Effect.addFinalizer(() => Effect.sync(() => wakers.delete(kind)))
      })

    /** Deletes finished jobs past their retention. */
    const purge = Effect.orDie(purgeRows(undefined))

    return { enqueue, wake, get, work, purge, workerId }
  })

export type JobsShape = Effect.Effect.Success<ReturnType<typeof makeJobs>>

export class Jobs extends Context.Tag("app/Jobs")<Jobs, JobsShape>() {}

export const JobsLive = (
  options: { readonly lease: Duration.DurationInput; readonly retention: Duration.DurationInput }
) => Layer.effect(Jobs, makeJobs(options))

/** Deletes finished jobs past their retention; any replica may run it. */
export const JobsJanitorLive = janitorOf("job", "10 minutes", Jobs, (jobs) => jobs.purge)
