/**
 * The janitor helper (src/platform/jobs/Janitor.ts) on the TestClock: a chore runs once when its layer
 * starts and then every `every`; a failing or dying round is logged and the next one runs as
 * planned; closing the layer's scope stops it. Stand-in chores, no database.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Logger, Ref, Scope, TestClock } from "effect"
import { janitor, janitorOf } from "../../../src/platform/jobs/Janitor.js"

/** Lets the janitor's forked fiber run what is due now. */
const settle = TestClock.adjust("0 millis")

/** The messages logged while `self` runs, as "LEVEL message". */
const withLogs = <A, E, R>(self: (logs: ReadonlyArray<string>) => Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const logs: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      const text = (Array.isArray(message) ? message : [message]).filter((m) => typeof m === "string").join(" ")
      logs.push(`${logLevel.label} ${text}`)
    })
    return self(logs).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
  })

describe("janitor", () => {
  it.scoped("runs at start, then every `every`, until its scope closes", () =>
    Effect.gen(function*() {
      const rounds = yield* Ref.make(0)
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(janitor("test", "1 minute", Ref.update(rounds, (n) => n + 1)), scope)
      yield* settle
      expect(yield* Ref.get(rounds)).toBe(1)
      yield* TestClock.adjust("59 seconds")
      expect(yield* Ref.get(rounds)).toBe(1)
      yield* TestClock.adjust("1 second")
      expect(yield* Ref.get(rounds)).toBe(2)
      yield* TestClock.adjust("3 minutes")
      expect(yield* Ref.get(rounds)).toBe(5)
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust("10 minutes")
      expect(yield* Ref.get(rounds)).toBe(5)
    }))

  it.scoped("a failing or dying round is logged and the next one runs as planned", () =>
    withLogs((logs) =>
      Effect.gen(function*() {
        const rounds = yield* Ref.make(0)
        const chore = Effect.flatMap(Ref.updateAndGet(rounds, (n) => n + 1), (n) =>
          n === 2
            ? Effect.fail("disk full")
            : n === 3
            ? Effect.die("bug")
            : Effect.void)
        yield* Layer.build(janitor("sessions", "1 minute", chore))
        yield* settle
        yield* TestClock.adjust("1 minute")
        yield* TestClock.adjust("1 minute")
        yield* TestClock.adjust("1 minute")
        expect(yield* Ref.get(rounds)).toBe(4)
        expect(logs.filter((l) => l.includes("sessions cleanup failed"))).toEqual([
          "WARN sessions cleanup failed",
          "WARN sessions cleanup failed"
        ])
      })
    ))

  it.scoped("janitorOf acquires its service once and runs the chore with it", () =>
    Effect.gen(function*() {
      class Store extends Context.Tag("test/Store")<Store, { readonly sweep: Effect.Effect<void> }>() {}
      const sweeps = yield* Ref.make(0)
      const acquired = yield* Ref.make(0)
      const store = Layer.effect(
        Store,
        Effect.as(Ref.update(acquired, (n) => n + 1), { sweep: Ref.update(sweeps, (n) => n + 1) })
      )
      yield* Layer.build(janitorOf("store", "30 seconds", Store, (s) => s.sweep).pipe(Layer.provide(store)))
      yield* settle
      yield* TestClock.adjust("1 minute")
      expect(yield* Ref.get(sweeps)).toBe(3)
      expect(yield* Ref.get(acquired)).toBe(1)
    }))
})
