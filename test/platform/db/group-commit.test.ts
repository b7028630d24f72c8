/**
 * Group commit (src/platform/db/GroupCommit.ts) with a stand-in statement: a caller alone is sent
 * alone; callers that arrive while a statement is in flight share the next one, in arrival order,
 * each answered with its own result; a failed statement fails only its own callers. No database.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Ref } from "effect"
import { groupCommit } from "../../../src/platform/db/GroupCommit.js"

/**
 * A stand-in statement that records each batch it is sent and answers `item × 10` per item. The
 * first batch waits for `release`, so the test can line callers up behind it; `fail` picks the
 * batches (by their first item) that fail instead, `die` those that die.
 */
const standIn = (options: {
  readonly fail?: ReadonlyArray<number>
  readonly die?: ReadonlyArray<number>
  readonly maxBatch?: number
}) =>
  Effect.gen(function*() {
    const batches = yield* Ref.make<ReadonlyArray<ReadonlyArray<number>>>([])
    const inFlight = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const commit = groupCommit(
      (items: ReadonlyArray<number>) =>
        Effect.gen(function*() {
          const seen = yield* Ref.getAndUpdate(batches, (b) => [...b, items])
          if (seen.length === 0) {
            yield* Deferred.succeed(inFlight, undefined)
            yield* Deferred.await(release)
          }
          if (options.fail?.includes(items[0]!)) return yield* Effect.fail(`batch of ${items[0]} failed`)
          if (options.die?.includes(items[0]!)) return yield* Effect.die(`batch of ${items[0]} died`)
          return items.map((i) => i * 10)
        }),
      options.maxBatch
    )
    const arrived = yield* Ref.make(0)
    /** Callers `items`, each forked after the previous one has queued. */
    const callers = (items: ReadonlyArray<number>) =>
      Effect.forEach(items, (item) =>
        Effect.gen(function*() {
          const before = yield* Ref.get(arrived)
          const fiber = yield* Effect.fork(Effect.zipRight(Ref.update(arrived, (n) => n + 1), commit(item)))
          while ((yield* Ref.get(arrived)) === before) yield* Effect.yieldNow()
          return fiber
        }))
    return { batches, inFlight, release, commit, callers }
  })

const exitsOf = <A, E>(fibers: ReadonlyArray<Fiber.Fiber<A, E>>) => Effect.forEach(fibers, Fiber.await)

describe("groupCommit", () => {
  it.effect("a caller alone is sent alone, without waiting for company", () =>
    Effect.gen(function*() {
      const s = yield* standIn({})
      yield* Deferred.succeed(s.release, undefined)
      expect(yield* s.commit(7)).toBe(70)
      expect(yield* s.commit(8)).toBe(80)
      expect(yield* Ref.get(s.batches)).toEqual([[7], [8]])
    }))

  it.effect("callers arriving while a statement is in flight share the next one, in arrival order, each with its own result", () =>
    Effect.gen(function*() {
      const s = yield* standIn({})
      const [first] = yield* s.callers([1])
      yield* Deferred.await(s.inFlight)
      const waiting = yield* s.callers([2, 3, 4, 5])
      yield* Deferred.succeed(s.release, undefined)
      expect(yield* Fiber.join(first!)).toBe(10)
      expect(yield* Effect.forEach(waiting, Fiber.join)).toEqual([20, 30, 40, 50])
      expect(yield* Ref.get(s.batches)).toEqual([[1], [2, 3, 4, 5]])
    }))

  it.effect("a batch holds at most maxBatch items; the rest follow in order", () =>
    Effect.gen(function*() {
      const s = yield* standIn({ maxBatch: 2 })
      const [first] = yield* s.callers([1])
      yield* Deferred.await(s.inFlight)
      const waiting = yield* s.callers([2, 3, 4, 5, 6])
      yield* Deferred.succeed(s.release, undefined)
      expect(yield* Effect.forEach([first!, ...waiting], Fiber.join)).toEqual([10, 20, 30, 40, 50, 60])
      expect(yield* Ref.get(s.batches)).toEqual([[1], [2, 3], [4, 5], [6]])
    }))

  it.effect("a failed statement fails its own callers only: the batches before and after succeed", () =>
    Effect.gen(function*() {
      const s = yield* standIn({ fail: [2], maxBatch: 2 })
      const [first] = yield* s.callers([1])
      yield* Deferred.await(s.inFlight)
      const waiting = yield* s.callers([2, 3, 4, 5])
      yield* Deferred.succeed(s.release, undefined)
      const exits = yield* exitsOf([first!, ...waiting])
      expect(exits).toEqual([
        Exit.succeed(10),
        Exit.fail("batch of 2 failed"),
        Exit.fail("batch of 2 failed"),
        Exit.succeed(40),
        Exit.succeed(50)
      ])
      expect(yield* Ref.get(s.batches)).toEqual([[1], [2, 3], [4, 5]])
    }))

  it.effect("a failed or dead first statement does not stall the queue: the next caller gets its own round trip", () =>
    Effect.gen(function*() {
      const failing = yield* standIn({ fail: [1] })
      yield* Deferred.succeed(failing.release, undefined)
      expect(yield* Effect.exit(failing.commit(1))).toEqual(Exit.fail("batch of 1 failed"))
      expect(yield* failing.commit(2)).toBe(20)

      const dying = yield* standIn({ die: [1] })
      yield* Deferred.succeed(dying.release, undefined)
      expect(yield* Effect.exit(dying.commit(1))).toEqual(Exit.die("batch of 1 died"))
      expect(yield* dying.commit(2)).toBe(20)
      expect(yield* Ref.get(dying.batches)).toEqual([[1], [2]])
    }))
})
