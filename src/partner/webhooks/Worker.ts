/**
 * Background work of the Partner API, on every replica (WORKERS=true):
 * - the webhook delivery loop (claims with SKIP LOCKED, so replicas share the queue; see Delivery.ts);
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
    // The delivery loop never ends by itself; should it die, log and start it again.
    yield* webhooks.run.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("webhook delivery loop failed", cause)),
      Effect.repeat(Schedule.spaced(config.partner.webhookPollInterval)),
      Effect.forkScoped
    )
    yield* credentials.purgeNonces.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("nonce cleanup failed", cause)),
      Effect.repeat(Schedule.spaced(Duration.minutes(1))),
      Effect.forkScoped
    )
  })
)
