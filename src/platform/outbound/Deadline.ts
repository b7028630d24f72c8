/**
 * Deadlines on the hot path, without `Effect.timeout`'s machinery.
 *
 * `Effect.timeout` races the effect against a sleep: two forked fibers (each a copy of every
 * FiberRef), a join of the winner's FiberRefs (a diff of the whole service context) and the
 * interruption of the loser — per call. Here: the effect runs in one forked fiber and is awaited
 * with one timer and one fiber observer. Measured: see bench/results/pricing.md ("Where the time
 * goes"): the request guard and the rate-limit store call, once per request each.
 *
 * CONTRACT: on time-out the fiber is interrupted without waiting for it (work that cannot be
 * interrupted at once finishes in the background), and the caller gets its answer at once.
 */
import { Effect, type Exit, Fiber, Option } from "effect"

/** `Some(exit)` when `fiber` finished within `ms`, `None` when the time ran out (the fiber is left running). */
export const awaitWithin = <A, E>(
  fiber: Fiber.RuntimeFiber<A, E>,
  ms: number
): Effect.Effect<Option.Option<Exit.Exit<A, E>>> =>
  Effect.async<Option.Option<Exit.Exit<A, E>>>((resume) => {
    let settled = false
    const observer = (exit: Exit.Exit<A, E>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(Effect.succeed(Option.some(exit)))
    }
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      fiber.removeObserver(observer)
      resume(Effect.succeed(Option.none()))
    }, ms)
    fiber.addObserver(observer)
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      fiber.removeObserver(observer)
    })
  })

/**
 * Runs `self` in its own fiber for at most `ms`: its exit, or `onTimeout()` once the time is up
 * (the fiber is then interrupted in the background). Interrupting the caller interrupts it too.
 * FiberRefs changed by `self` stay in its fiber.
 */
export const runWithin = <A, E, B>(
  self: Effect.Effect<A, E>,
  ms: number,
  onTimeout: () => Effect.Effect<B, E>
): Effect.Effect<A | B, E> =>
  Effect.flatMap(Effect.forkDaemon(self), (fiber) =>
    Effect.flatMap(
      Effect.onInterrupt(Effect.interruptible(awaitWithin(fiber, ms)), () => Fiber.interruptFork(fiber)),
      (exit): Effect.Effect<A | B, E> =>
        Option.isNone(exit) ? Effect.zipRight(Fiber.interruptFork(fiber), onTimeout()) : exit.value
    ))
