/**
 * Protection around one kind of upstream (the registrar API, RDAP servers): a time limit per
 * call, and per key (e.g. per RDAP server) bounded concurrency in this process and a circuit
 * breaker.
 *
 * Breaker: after `failures` consecutive failures of a key its circuit opens and calls fail at
 * once for `cooldown`; then one trial call is let through (half-open): success closes the
 * circuit, failure opens it again. A call interrupted by its caller (client gone) counts for
 * nothing. Waiting for a concurrency permit counts toward the time limit, so a saturated
 * upstream yields a prompt "timeout" instead of a queue that never drains.
 */
import { Clock, Duration, Effect } from "effect"
import { runWithin } from "../platform/outbound/Deadline.js"

export interface GuardOptions {
  readonly name: string
  readonly timeout: Duration.Duration
  readonly concurrency: number
  readonly failures: number
  readonly cooldown: Duration.Duration
}

export interface Rejected {
  readonly _tag: "Rejected"
  readonly reason: "timeout" | "circuit_open"
  readonly message: string
}

interface Circuit {
  failures: number
  openUntil: number
  trialInFlight: boolean
  readonly permits: Effect.Semaphore
}

export type BreakerState = "closed" | "open" | "half_open"

export const makeGuard = (options: GuardOptions) =>
  Effect.gen(function*() {
    const circuits = new Map<string, Circuit>()
    const timeoutMs = Duration.toMillis(options.timeout)
    const cooldownMs = Duration.toMillis(options.cooldown)

    const circuitOf = (key: string) => {
      let c = circuits.get(key)
      if (c === undefined) {
        if (circuits.size > 10_000) circuits.clear()
        c = {
          failures: 0,
          openUntil: 0,
          trialInFlight: false,
          permits: Effect.unsafeMakeSemaphore(Math.max(1, options.concurrency))
        }
        circuits.set(key, c)
      }
      return c
    }

    const stateOf = (key: string, now: number): BreakerState => {
      const c = circuits.get(key)
      if (c === undefined || c.openUntil === 0) return "closed"
      return now < c.openUntil ? "open" : "half_open"
    }

    /**
     * Runs `call` under the guard. `isFailure` tells which errors are the upstream's fault (a 404
     * "no such object" is an answer, not a failure).
     */
    const run = <A, E>(
      key: string,
      call: Effect.Effect<A, E>,
      isFailure: (e: E) => boolean = () => true
    ): Effect.Effect<A, E | Rejected> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const circuit = circuitOf(key)
        const state = stateOf(key, now)
        if (state === "open" || (state === "half_open" && circuit.trialInFlight)) {
          return yield* Effect.fail<Rejected>({
            _tag: "Rejected",
            reason: "circuit_open",
            message: `${options.name} circuit open after ${circuit.failures} consecutive failures; retrying in ${
              Math.max(1, Math.ceil((circuit.openUntil - now) / 1000))
            } s`
          })
        }
        const trial = state === "half_open"
        if (trial) circuit.trialInFlight = true

        const failed = Effect.suspend(() =>
          Effect.map(Clock.currentTimeMillis, (at) => {
            circuit.failures++
            if (trial || circuit.failures >= options.failures) circuit.openUntil = at + cooldownMs
          })
        )
        const succeeded = Effect.sync(() => {
          circuit.failures = 0
          circuit.openUntil = 0
        })

        // `runWithin`, not `Effect.timeoutFail`: one fiber and one timer per call instead of a race
        // of two fibers (this runs once per name of a search).
        return yield* runWithin<A, E | Rejected, never>(circuit.permits.withPermits(1)(call), timeoutMs, () =>
          Effect.fail({
            _tag: "Rejected",
            reason: "timeout",
            message: `${options.name} did not answer within ${timeoutMs} ms`
          })).pipe(
            Effect.tapBoth({
              onFailure: (e) => (isRejected(e) || isFailure(e as E) ? failed : succeeded),
              onSuccess: () => succeeded
            }),
            Effect.ensuring(Effect.sync(() => {
              if (trial) circuit.trialInFlight = false
            }))
          )
      })

    return { run, stateOf: (key: string) => Effect.map(Clock.currentTimeMillis, (now) => stateOf(key, now)) }
  })

export const isRejected = (e: unknown): e is Rejected =>
  typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "Rejected"

export type Guard = Effect.Effect.Success<ReturnType<typeof makeGuard>>
