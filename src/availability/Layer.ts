/** The availability capability as one layer: the engine (catalogue, registrar, RDAP, WHOIS, market behind it). */
import { Effect, Layer, Schedule } from "effect"
import { AvailabilityEngine } from "./Availability.js"

export const AvailabilityLive = AvailabilityEngine.Live

/** Drops expired availability answers; any replica may run it. */
export const AvailabilityWorkersLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const engine = yield* AvailabilityEngine
    yield* engine.purgeExpired.pipe(
      Effect.catchAllDefect((e) => Effect.logWarning("availability cache cleanup failed", e)),
      Effect.repeat(Schedule.spaced("10 minutes")),
      Effect.forkScoped
    )
  })
)
