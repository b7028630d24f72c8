/**
 * Background work of the Partner API, on every replica (WORKERS=true):
 * - the webhook delivery loop (claims with SKIP LOCKED, so replicas share the queue);
 * - the nonce janitor (expired nonces are deleted; replays are refused until then).
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { Credentials } from "../Credentials.js"
import { Webhooks } from "./Webhooks.js"

export const PartnerWorkersLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const webhooks = yield* Webhooks
    const credentials = yield* Credentials
    const poll = config.partner.webhookPollInterval
    // Drain while there is work, then sleep for the poll interval.
    const drain: Effect.Effect<void> = webhooks.deliverDue().pipe(
      Effect.flatMap((n) => (n > 0 ? drain : Effect.void)),
      Effect.catchAllCause((cause) => Effect.logWarning("webhook delivery round failed", cause))
    )
    yield* drain.pipe(Effect.repeat(Schedule.spaced(poll)), Effect.forkScoped)
    yield* credentials.purgeNonces.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("nonce cleanup failed", cause)),
      Effect.repeat(Schedule.spaced(Duration.minutes(1))),
      Effect.forkScoped
    )
  })
)
