/**
 * Housekeeping that deletes what expired (sessions, nonces, counters, keys, finished jobs, cached
 * answers): one fiber per chore, forked into the layer's scope, run once at start and then every
 * `every`. Any replica may run them (each chore is an idempotent delete), so none takes a lock.
 * A failed round is logged and the next one runs as planned.
 */
import { Duration, Effect, Layer, Schedule } from "effect"

/** A layer running `chore` every `every` for as long as it lives. */
export const janitor = <E, R>(name: string, every: Duration.DurationInput, chore: Effect.Effect<unknown, E, R>) =>
  Layer.scopedDiscard(
    chore.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning(`${name} cleanup failed`, cause)),
      Effect.repeat(Schedule.spaced(every)),
      Effect.forkScoped
    )
  )

/** The same, for a chore that needs a service first. */
export const janitorOf = <A, E1, R1, E2, R2>(
  name: string,
  every: Duration.DurationInput,
  acquire: Effect.Effect<A, E1, R1>,
  chore: (a: A) => Effect.Effect<unknown, E2, R2>
) => Layer.unwrapEffect(Effect.map(acquire, (a) => janitor(name, every, chore(a))))
