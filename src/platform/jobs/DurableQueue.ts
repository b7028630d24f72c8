/**
 * The one durable-queue engine: the claim loop, lease keeping, retries and back-off of every queue
 * kept in a PostgreSQL table, the jobs (Jobs.ts) and the partner webhook deliveries
 * (partner/webhooks/Delivery.ts). What differs per queue stays with the table's owner, as a
 * `QueueStore`: its claim SQL (what is due, in which order, how fairly: `FOR UPDATE SKIP LOCKED`
 * with a lease, so replicas never take one item twice) and what an outcome writes.
 *
 * - Claiming: a pool of `concurrency` slots per process. Whenever slots are free the store claims
 *   up to that many due items, each runs in its own fiber, and the loop waits for a slot to free,
 *   a local `wake` (an enqueue in this process), or the poll interval. A slow item holds only its
 *   own slot, and the store's claim decides who gets the free ones (per-endpoint caps…).
 * - Leases: while a handler runs, a store with `renew` has its lease extended every third of it;
 *   when it was lost the handler is stopped, and the new holder settles the item. A store without
 *   `renew` takes a lease longer than its handler can run (the handler's own timeout bounds it).
 * - Outcome: success is `Done`; a failure is `Retry` after `retryAfter(item, failure)`, or
 *   `Failed` when that is None (given up, or not worth retrying); a defect is settled as
 *   `onDefect` says (None: left to the lease); an interrupted handler (shutdown, lease lost) is
 *   left to the lease, exactly like a crash.
 * - Interruption: the handler runs uninterruptibly except the part it marks `Effect.interruptible`
 *   (a job handler entirely, a webhook attempt until its answer is in). A shutdown or a lost lease
 *   interrupts that part; a handler past it finishes, and its outcome is settled even during
 *   shutdown, so an answer that was in is never lost (a webhook accepted is not sent again).
 */
import { Cause, Duration, Effect, Exit, Fiber, Option, Queue, Ref, type Scope } from "effect"

export type Outcome<R, F> =
  | { readonly _tag: "Done"; readonly value: R }
  | { readonly _tag: "Retry"; readonly failure: F; readonly delay: Duration.Duration }
  | { readonly _tag: "Failed"; readonly failure: F }

/** A queue's table, as the engine sees it. Database failures are defects here (the owner's repository). */
export interface QueueStore<A, R, F> {
  /** Claims up to `limit` due items for this process, never one that another holds. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<A>>
  /** Extends this process's lease on `item`: false when it was lost. */
  readonly renew?: (item: A) => Effect.Effect<boolean>
  /** Records the outcome of one run. */
  readonly settle: (item: A, outcome: Outcome<R, F>) => Effect.Effect<void>
}

export interface QueueWorkers<A, R, F> {
  /** In logs: "<name> claim failed"… */
  readonly name: string
  readonly store: QueueStore<A, R, F>
  /** Runs uninterruptibly except what it marks `Effect.interruptible` (see the header). */
  readonly handle: (item: A) => Effect.Effect<R, F>
  /** The delay before the next run after this failure; None: failed for good. */
  readonly retryAfter: (item: A, failure: F) => Option.Option<Duration.Duration>
  /** The failure a handler defect counts as; None leaves the item to its lease. */
  readonly onDefect: (item: A) => Option.Option<F>
  /** The lease the store's claim takes (the renewal period is a third of it). */
  readonly lease: Duration.DurationInput
  readonly concurrency: number
  readonly pollInterval: Duration.DurationInput
  readonly span: (item: A) => { readonly name: string; readonly attributes: Record<string, unknown> }
  readonly id: (item: A) => string
}

/** Back-off as a function of the failed run's number (1-based). */
export const Backoff = {
  /** `base`, `base × factor`, `base × factor²`… */
  exponential: (base: Duration.DurationInput, factor: number) => (failedRuns: number): Duration.Duration =>
    Duration.times(Duration.decode(base), factor ** (failedRuns - 1)),
  /** `base × multiples[n - 1]`, then None: given up. */
  steps:
    (multiples: ReadonlyArray<number>, base: Duration.DurationInput) =>
    (failedRuns: number): Option.Option<Duration.Duration> =>
      Option.map(Option.fromNullable(multiples[failedRuns - 1]), (m) => Duration.times(Duration.decode(base), m))
}

const annotateItem = <A, R, F>(q: QueueWorkers<A, R, F>, item: A) =>
  Effect.annotateLogs({ queue: q.name, item: q.id(item) })

/** Renews the lease while the handler runs; stops the handler when the lease was lost. */
const keepLease = <A, R, F>(
  q: QueueWorkers<A, R, F>,
  renew: (item: A) => Effect.Effect<boolean>,
  item: A,
  running: Fiber.Fiber<R, F>
) =>
  Effect.gen(function*() {
    const lease = Duration.decode(q.lease)
    while (true) {
      yield* Effect.sleep(Duration.millis(Math.max(50, Duration.toMillis(lease) / 3)))
      const held = yield* renew(item).pipe(Effect.catchAllCause(() => Effect.succeed(true)))
      if (!held) {
        yield* Effect.logWarning(`${q.name} lease lost; stopping its handler`).pipe(annotateItem(q, item))
        return yield* Fiber.interrupt(running)
      }
    }
  })

const outcomeOf = <A, R, F>(
  q: QueueWorkers<A, R, F>,
  item: A,
  exit: Exit.Exit<R, F>
): Effect.Effect<Option.Option<Outcome<R, F>>> =>
  Effect.gen(function*() {
    if (Exit.isSuccess(exit)) return Option.some({ _tag: "Done" as const, value: exit.value })
    if (Cause.isInterruptedOnly(exit.cause)) return Option.none()
    let failure = Cause.failureOption(exit.cause)
    if (Option.isNone(failure)) {
      yield* Effect.logError(`${q.name} handler defect`, exit.cause).pipe(annotateItem(q, item))
      failure = q.onDefect(item)
    }
    return Option.map(failure, (f): Outcome<R, F> =>
      Option.match(q.retryAfter(item, f), {
        onNone: () => ({ _tag: "Failed" as const, failure: f }),
        onSome: (delay) => ({ _tag: "Retry" as const, failure: f, delay })
      }))
  })

/**
 * One run of an item this process has claimed: the handler under its lease, then its outcome
 * settled. The loop below runs every claimed item through it; a caller that claimed one item
 * itself (the sandbox's `advance`) runs it the same way. The handler's fiber starts
 * uninterruptible, so an answer computed after its interruptible part is never dropped by an
 * interruption arriving as that part ends.
 */
export const runClaimed = <A, R, F>(q: QueueWorkers<A, R, F>, item: A): Effect.Effect<void> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const running = yield* Effect.fork(q.handle(item))
      const keeper = q.store.renew === undefined
        ? undefined
        : yield* Effect.fork(restore(keepLease(q, q.store.renew, item, running)))
      // Interrupted (shutdown): stop the handler, and settle what it had answered, if anything.
      const exit = yield* restore(Fiber.await(running)).pipe(
        Effect.catchAllCause(() => Fiber.interrupt(running))
      )
      if (keeper !== undefined) yield* Fiber.interrupt(keeper)
      const outcome = yield* outcomeOf(q, item, exit)
      if (Option.isSome(outcome)) yield* q.store.settle(item, outcome.value)
    })
  )

/** Starts the workers of one queue in the current scope; `wake` makes them claim at once. */
export const runWorkers = <A, R, F>(
  q: QueueWorkers<A, R, F>
): Effect.Effect<{ readonly wake: Effect.Effect<void> }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const poll = Duration.decode(q.pollInterval)
    const wakeup = yield* Queue.sliding<void>(1)
    const wake = Effect.asVoid(Queue.offer(wakeup, undefined))
    const inFlight = yield* Ref.make(0)

    const release = Ref.update(inFlight, (n) => n - 1).pipe(Effect.zipRight(wake))

    const loop = Effect.gen(function*() {
      while (true) {
        const free = q.concurrency - (yield* Ref.get(inFlight))
        if (free > 0) {
          const claimed = yield* q.store.claim(free).pipe(
            Effect.catchAllCause((cause) => Effect.as(Effect.logWarning(`${q.name} claim failed`, cause), []))
          )
          yield* Ref.update(inFlight, (n) => n + claimed.length)
          for (const item of claimed) {
            const span = q.span(item)
            yield* runClaimed(q, item).pipe(
              Effect.withSpan(span.name, { root: true, captureStackTrace: false, attributes: span.attributes }),
              Effect.catchAllCause((cause) => Effect.logWarning(`${q.name} bookkeeping failed`, cause)),
              Effect.ensuring(release),
              Effect.forkIn(scope)
            )
          }
        }
        // Wait for a slot to free, a local enqueue, or the next poll.
        yield* Queue.take(wakeup).pipe(Effect.timeout(poll), Effect.ignore)
      }
    })

    yield* loop.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning(`${q.name} loop failed`, cause)),
      Effect.zipRight(Effect.sleep(poll)),
      Effect.forever,
      Effect.forkIn(scope)
    )
    return { wake }
  })
