/**
 * Rate limits count in fixed windows aligned to the epoch (platform/http/RateLimit.ts). A test whose
 * requests must land in one window waits for the top of a fresh one when less than a tenth of the
 * current window is left (6 s of a minute): requests that straddle a window's end count in two,
 * and under a loaded CI the few requests of such a test can take seconds, but not six. (A quarter,
 * as before, made one such test in four wait up to 15 s.)
 */
import { Effect } from "effect"

export const inOneWindow = (windowMs = 60_000) =>
  Effect.suspend(() => {
    const into = Date.now() % windowMs
    // The wall clock's time (setTimeout), not Effect's: `it.effect` runs on the TestClock.
    return into > windowMs * 0.9
      ? Effect.promise(() => new Promise((go) => setTimeout(go, windowMs - into + 50)))
      : Effect.void
  })
