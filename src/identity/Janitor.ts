/**
 * Housekeeping for identity, on any replica (the deletes are idempotent): expired sessions, and
 * authorization codes and tokens a day past their expiry (kept that long so late reuse of a
 * code or refresh token is still recognised as reuse, not just as unknown).
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { Accounts } from "./accounts/Accounts.js"
import { OAuth } from "./oauth/OAuth.js"

export const IdentityJanitorLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const oauth = yield* OAuth
    yield* Effect.all([accounts.deleteExpiredSessions, oauth.deleteExpired], { discard: true }).pipe(
      Effect.catchAll((e) => Effect.logWarning("identity cleanup failed", e)),
      Effect.repeat(Schedule.spaced(Duration.minutes(10))),
      Effect.forkScoped
    )
  })
)
