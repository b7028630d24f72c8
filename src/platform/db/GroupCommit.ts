/**
 * Group commit: callers that arrive while a statement is in flight are sent together in the next
 * one. One caller alone pays one round trip (no waiting for company); under concurrency N callers
 * share one statement and one commit. `run` gets the items in arrival order and must answer one
 * result per item, in the same order; its failure (or defect) is every caller's.
 */
import { Deferred, Effect, Exit, FiberId } from "effect"

export const groupCommit = <A, B, E>(
  run: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E>,
  maxBatch = 256
): (item: A) => Effect.Effect<B, E> => {
  let queue: Array<{ readonly item: A; readonly done: Deferred.Deferred<B, E> }> = []
  let running = false

  const loop: Effect.Effect<void> = Effect.suspend(() => {
    if (queue.length === 0) {
      running = false
      return Effect.void
    }
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch)
    queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch)
    return Effect.flatMap(Effect.exit(run(batch.map((b) => b.item))), (exit) => {
      if (Exit.isSuccess(exit)) {
        batch.forEach((b, i) => Deferred.unsafeDone(b.done, Exit.succeed(exit.value[i]!)))
      } else {
        const failed = Exit.failCause(exit.cause)
        for (const b of batch) Deferred.unsafeDone(b.done, failed)
      }
      return loop
    })
  })

  return (item) =>
    Effect.suspend(() => {
      const done = Deferred.unsafeMake<B, E>(FiberId.none)
      queue.push({ item, done })
      if (running) return Deferred.await(done)
      running = true
      return Effect.zipRight(Effect.forkDaemon(loop), Deferred.await(done))
    })
}
