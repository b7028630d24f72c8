/**
 * Rate limits count in fixed windows aligned to the epoch (platform/http/RateLimit.ts). A test whose
 * requests must land in one window waits for the top of a fresh one when less than a quarter of the
 * current window is left: under a loaded CI a few requests can take seconds, and requests that
 * straddle a window's end count in two.
 */
import { Effect } from "effect"

export const inOneWindow = (windowMs = 60_000) =>
  Effect.suspend(() => {
    const into = Date.now() % windowMs
    // The wall clock's time (setTimeout), not Effect's: `it.effect` runs on the TestClock.
    return into > windowMs * 0.75
      ? Effect.promise(() => new Promise((go) => setTimeout(go, windowMs - into + 50)))
      : Effect.void
  })
