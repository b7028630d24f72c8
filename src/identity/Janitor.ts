/**
 * Housekeeping for identity, on any replica (the deletes are idempotent): expired sessions, and
 * authorization codes and tokens a day past their expiry (kept that long so late reuse of a
 * code or refresh token is still recognised as reuse, not just as unknown).
 */
import { Effect } from "effect"
import { janitorOf } from "../platform/jobs/Janitor.js"
import { Accounts } from "./accounts/Accounts.js"
import { OAuth } from "./oauth/OAuth.js"

export const IdentityJanitorLive = janitorOf(
  "identity",
  "10 minutes",
  Effect.all([Accounts, OAuth]),
  ([accounts, oauth]) => Effect.all([accounts.deleteExpiredSessions, oauth.deleteExpired], { discard: true })
)
