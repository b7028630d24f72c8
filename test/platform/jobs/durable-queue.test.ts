/**
 * The durable-queue engine (src/platform/jobs/DurableQueue.ts) over an in-memory store: the pool cap and
 * its refill, retry and back-off decisions, defects, shutdown (an answer that was in is settled,
 * a running handler is left to its lease) and a lost lease. The SQL side is covered per queue
 * (test/tools/jobs.test.ts, test/partner/webhook*.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Option, Scope } from "effect"
import { Backoff, type Outcome, type QueueStore, runWorkers } from "../../../src/platform/jobs/DurableQueue.js"

interface Item {
  readonly id: string
  readonly attempt: number
}

/** Due items in memory; a retried item is due again at once (the delay is the store's to keep). */
const memoryStore = <R, F>(ids: ReadonlyArray<string>, renew?: (item: Item) => Effect.Effect<boolean>) => {
  const due: Array<Item> = ids.map((id) => ({ id, attempt: 1 }))
  const settled: Array<{ readonly id: string; readonly outcome: Outcome<R, F> }> = []
  const store: QueueStore<Item, R, F> = {
    claim: (limit) => Effect.sync(() => due.splice(0, limit)),
    settle: (item, outcome) =>
      Effect.sync(() => {
        settled.push({ id: item.id, outcome })
        if (outcome._tag === "Retry") due.push({ id: item.id, attempt: item.attempt + 1 })
      }),
    ...(renew === undefined ? {} : { renew })
  }
  return { store, settled }
}

const common = {
  name: "test",
  lease: Duration.seconds(30),
  // Long, so every claim after the first is a wake-up, not a poll.
  pollInterval: Duration.seconds(30),
  id: (item: Item) => item.id,
  span: (item: Item) => ({ name: "test", attributes: { id: item.id } })
}

const waitUntil = (check: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200 && !check(); i++) yield* Effect.sleep("10 millis")
    expect(check()).toBe(true)
  })

describe("DurableQueue", () => {
  it("Backoff: exponential and stepped delays; steps give up past the table", () => {
    const exp = Backoff.exponential(Duration.seconds(1), 4)
    expect([1, 2, 3].map((n) => Duration.toMillis(exp(n)))).toEqual([1_000, 4_000, 16_000])
    const steps = Backoff.steps([1, 60], Duration.millis(50))
    expect([1, 2, 3].map((n) => Option.map(steps(n), Duration.toMillis))).toEqual([
      Option.some(50),
      Option.some(3_000),
      Option.none()
    ])
  })

  it.scopedLive("at most `concurrency` handlers run at once; a freed slot is refilled at once, without polling", () =>
    Effect.gen(function*() {
      const { settled, store } = memoryStore<string, never>(["a", "b", "c", "d", "e"])
      let running = 0
      let most = 0
      yield* runWorkers<Item, string, never>({
        ...common,
        store,
        handle: (item) =>
          Effect.sync(() => {
            running++
            most = Math.max(most, running)
          }).pipe(
            Effect.zipRight(Effect.sleep("30 millis")),
            Effect.ensuring(Effect.sync(() => running--)),
            Effect.as(item.id)
          ),
        retryAfter: () => Option.none(),
        onDefect: () => Option.none(),
        concurrency: 2
      })
      yield* waitUntil(() => settled.length === 5)
      expect(most).toBe(2)
      expect(settled.map((s) => s.outcome).every((o) => o._tag === "Done")).toBe(true)
      expect(settled.map((s) => s.id).sort()).toEqual(["a", "b", "c", "d", "e"])
    }))

  it.scopedLive("a failure is retried while retryAfter gives a delay, then Failed; a defect counts as onDefect says", () =>
    Effect.gen(function*() {
      const { settled, store } = memoryStore<never, string>(["flaky", "crash", "crash-leased"])
      yield* runWorkers<Item, never, string>({
        ...common,
        store,
        handle: (item) => item.id === "flaky" ? Effect.fail(`boom ${item.attempt}`) : Effect.die("bug"),
        retryAfter: (item) => item.attempt < 3 ? Option.some(Duration.millis(item.attempt)) : Option.none(),
        onDefect: (item) => item.id === "crash" ? Option.some("unexpected error") : Option.none(),
        concurrency: 2
      })
      yield* waitUntil(() => settled.filter((s) => s.id === "flaky").length === 3)
      expect(settled.filter((s) => s.id === "flaky").map((s) => s.outcome)).toEqual([
        { _tag: "Retry", failure: "boom 1", delay: Duration.millis(1) },
        { _tag: "Retry", failure: "boom 2", delay: Duration.millis(2) },
        { _tag: "Failed", failure: "boom 3" }
      ])
      // The crash's defect counts as a failure (retried, then failed); crash-leased is left to its lease.
      yield* waitUntil(() => settled.filter((s) => s.id === "crash").length === 3)
      expect(settled.filter((s) => s.id === "crash").map((s) => s.outcome._tag)).toEqual(["Retry", "Retry", "Failed"])
      expect(settled.filter((s) => s.id === "crash-leased")).toEqual([])
    }))

  it.scopedLive("shutdown: a handler that already answered is settled; one still running is left to its lease", () =>
    Effect.gen(function*() {
      const { settled, store } = memoryStore<string, never>(["answering", "waiting"])
      const started = yield* Deferred.make<void>()
      const scope = yield* Scope.make()
      yield* runWorkers<Item, string, never>({
        ...common,
        store,
        // "answering" is past its interruptible part (its answer is in, it is recording it) when
        // the shutdown comes; "waiting" is still in it.
        handle: (item) =>
          item.id === "answering"
            ? Effect.interruptible(Deferred.succeed(started, undefined)).pipe(
              Effect.zipRight(Effect.sleep("100 millis")),
              Effect.as("ok")
            )
            : Effect.interruptible(Effect.never),
        retryAfter: () => Option.none(),
        onDefect: () => Option.none(),
        concurrency: 2
      }).pipe(Scope.extend(scope))
      yield* Deferred.await(started)
      yield* Scope.close(scope, Exit.void)
      expect(settled).toEqual([{ id: "answering", outcome: { _tag: "Done", value: "ok" } }])
    }))

  it.scopedLive("a lost lease stops the handler, and the item is not settled by this worker", () =>
    Effect.gen(function*() {
      let renewals = 0
      const { settled, store } = memoryStore<string, never>(
        ["held", "lost"],
        (item) => Effect.sync(() => item.id === "held" || ++renewals < 2)
      )
      const stopped = yield* Deferred.make<string>()
      yield* runWorkers<Item, string, never>({
        ...common,
        lease: Duration.millis(150),
        store,
        handle: (item) =>
          item.id === "held"
            ? Effect.sleep("300 millis").pipe(Effect.as("done"))
            : Effect.interruptible(Effect.never).pipe(Effect.onInterrupt(() => Deferred.succeed(stopped, item.id))),
        retryAfter: () => Option.none(),
        onDefect: () => Option.none(),
        concurrency: 2
      })
      expect(yield* Deferred.await(stopped)).toBe("lost")
      yield* waitUntil(() => settled.length === 1)
      yield* Effect.sleep("100 millis")
      expect(settled).toEqual([{ id: "held", outcome: { _tag: "Done", value: "done" } }])
    }))
})
