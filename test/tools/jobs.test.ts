import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Data, Deferred, Duration, Effect, Exit, Option, Scope } from "effect"
import { JobFailure, makeJobs } from "../../src/platform/jobs/Jobs.js"
import * as TestServer from "../support/TestServer.js"

/** Any failure other than JobFailure: retried. */
class UpstreamHiccup extends Data.TaggedError("UpstreamHiccup") {}

const waitFor = <A>(check: Effect.Effect<Option.Option<A>, unknown>, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      const v = yield* check
      if (Option.isSome(v)) return v.value
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.dieMessage(`timed out waiting for ${what}`)
  })

const doneState = (jobs: Effect.Effect.Success<ReturnType<typeof makeJobs>>, id: string) =>
  waitFor(
    Effect.map(jobs.get(id), (s) => Option.filter(s, (j) => j.status === "done" || j.status === "failed")),
    `job ${id} to finish`
  )

layer(TestServer.layer({ WORKERS: "false" }), { excludeTestServices: true })("durable jobs", (it) => {
  it.scoped("queued → running → done, with progress and timestamps, polled until done", () =>
    Effect.gen(function*() {
      const jobs = yield* makeJobs({ lease: Duration.seconds(5), retention: Duration.days(1) })
      const release = yield* Deferred.make<void>()
      const job = yield* jobs.enqueue("test:lifecycle", { n: 3 })
      expect(job.status).toBe("queued")
      expect(job.id).toMatch(/^job_[0-9a-z]{26}$/)
      expect(job.attempts).toBe(0)
      yield* jobs.work<{ n: number }>("test:lifecycle", (j) =>
        Effect.gen(function*() {
          yield* j.progress({ done: 1, total: j.input.n })
          yield* Deferred.await(release)
          return { doubled: j.input.n * 2 }
        }))
      const running = yield* waitFor(
        Effect.map(jobs.get(job.id), (s) => Option.filter(s, (j) => j.status === "running" && j.progress !== null)),
        "running with progress"
      )
      expect(running.progress).toEqual({ done: 1, total: 3 })
      expect(running.attempts).toBe(1)
      expect(running.startedAt).toBeInstanceOf(Date)
      yield* Deferred.succeed(release, undefined)
      const done = yield* doneState(jobs, job.id)
      expect(done.status).toBe("done")
      expect(done.result).toEqual({ doubled: 6 })
      expect(done.error).toBeNull()
      expect(done.finishedAt!.getTime()).toBeGreaterThanOrEqual(done.startedAt!.getTime())
    }))

  it.scoped("two workers (two replicas) never run one job twice", () =>
    Effect.gen(function*() {
      const a = yield* makeJobs({ lease: Duration.seconds(5), retention: Duration.days(1) })
      const b = yield* makeJobs({ lease: Duration.seconds(5), retention: Duration.days(1) })
      expect(a.workerId).not.toBe(b.workerId)
      const ids: Array<string> = []
      for (let i = 0; i < 30; i++) ids.push((yield* a.enqueue("test:race", { i })).id)
      const runs: Array<string> = []
      const handler = (j: { id: string }) => Effect.sleep("5 millis").pipe(Effect.as(runs.push(j.id)))
      yield* a.work("test:race", handler, { concurrency: 3, pollInterval: "50 millis" })
      yield* b.work("test:race", handler, { concurrency: 3, pollInterval: "50 millis" })
      for (const id of ids) expect((yield* doneState(a, id)).status).toBe("done")
      expect(runs.length).toBe(30)
      expect(new Set(runs).size).toBe(30)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ attempts: number }>`select attempts from jobs where kind = 'test:race'`
      expect(rows.every((r) => r.attempts === 1)).toBe(true)
    }))

  it.scoped("a job whose worker died is claimed again once its lease lapses, and completes once", () =>
    Effect.gen(function*() {
      const lease = Duration.millis(600)
      const first = yield* makeJobs({ lease, retention: Duration.days(1) })
      const job = yield* first.enqueue("test:crash", { v: 1 })
      const started = yield* Deferred.make<void>()
      const completions: Array<string> = []
      // Replica 1 starts the job, then dies mid-job (its scope closes: fibers stop, nothing is released).
      const scope1 = yield* Scope.make()
      yield* first.work(
        "test:crash",
        () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Effect.never),
            Effect.zipRight(Effect.sync(() => completions.push("first")))
          )
      ).pipe(Scope.extend(scope1))
      yield* Deferred.await(started)
      yield* Scope.close(scope1, Exit.void)
      const stuck = Option.getOrThrow(yield* first.get(job.id))
      expect([stuck.status, stuck.attempts]).toEqual(["running", 1])

      // Replica 2 picks it up after the lease.
      const second = yield* makeJobs({ lease, retention: Duration.days(1) })
      yield* second.work(
        "test:crash",
        (j) => Effect.sync(() => completions.push(`second:${j.attempt}`)).pipe(Effect.as({ ok: true })),
        {
          pollInterval: "100 millis"
        }
      )
      const done = yield* doneState(second, job.id)
      expect(done.status).toBe("done")
      expect(done.attempts).toBe(2)
      expect(done.result).toEqual({ ok: true })
      expect(completions).toEqual(["second:2"])
    }))

  it.scoped("a job whose holders died maxAttempts times is failed by the next poll, never run again", () =>
    Effect.gen(function*() {
      const lease = Duration.millis(400)
      const first = yield* makeJobs({ lease, retention: Duration.days(1) })
      const job = yield* first.enqueue("test:exhausted", { v: 1 }, { maxAttempts: 1 })
      const started = yield* Deferred.make<void>()
      const scope1 = yield* Scope.make()
      yield* first.work(
        "test:exhausted",
        () => Deferred.succeed(started, undefined).pipe(Effect.zipRight(Effect.never))
      )
        .pipe(Scope.extend(scope1))
      yield* Deferred.await(started)
      yield* Scope.close(scope1, Exit.void)

      // Another replica's poll, once the lease lapsed: the job fails for good, its handler is not run.
      const ran: Array<number> = []
      const second = yield* makeJobs({ lease, retention: Duration.days(1) })
      yield* second.work("test:exhausted", (j) => Effect.sync(() => ran.push(j.attempt)), {
        pollInterval: "100 millis"
      })
      const failed = yield* doneState(second, job.id)
      expect([failed.status, failed.attempts, failed.error]).toEqual([
        "failed",
        1,
        "the job's worker stopped 1 times; giving up"
      ])
      expect(ran).toEqual([])
    }))

  it.scoped("failures: JobFailure fails at once; other errors are retried up to maxAttempts", () =>
    Effect.gen(function*() {
      const jobs = yield* makeJobs({ lease: Duration.seconds(5), retention: Duration.days(1) })
      const bad = yield* jobs.enqueue("test:fail", { kind: "bad" })
      const flaky = yield* jobs.enqueue("test:fail", { kind: "flaky" }, { maxAttempts: 2 })
      let flakyRuns = 0
      yield* jobs.work<{ kind: string }>("test:fail", (j) =>
        j.input.kind === "bad"
          ? Effect.fail(new JobFailure({ message: "input rejected" }))
          : Effect.suspend(
            () => (++flakyRuns === 1 ? Effect.fail(new UpstreamHiccup()) : Effect.succeed("recovered"))
          ), {
        pollInterval: "100 millis"
      })
      const badDone = yield* doneState(jobs, bad.id)
      expect([badDone.status, badDone.error, badDone.attempts]).toEqual(["failed", "input rejected", 1])
      const flakyDone = yield* doneState(jobs, flaky.id)
      expect([flakyDone.status, flakyDone.result, flakyDone.attempts]).toEqual(["done", "recovered", 2])
    }))

  it.scoped("finished jobs past their retention are purged", () =>
    Effect.gen(function*() {
      const jobs = yield* makeJobs({ lease: Duration.seconds(5), retention: Duration.millis(1) })
      const job = yield* jobs.enqueue("test:purge", {})
      yield* jobs.work("test:purge", () => Effect.succeed(1))
      yield* doneState(jobs, job.id)
      yield* Effect.sleep("1100 millis")
      yield* jobs.purge
      expect(Option.isNone(yield* jobs.get(job.id))).toBe(true)
    }))
})
