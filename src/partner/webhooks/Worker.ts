/**
 * Background work of the Partner API, on every replica (WORKERS=true):
 * - the webhook delivery loop (claims with SKIP LOCKED, so replicas share the queue; see Delivery.ts);
 * - the nonce janitor (expired nonces are deleted; replays are refused until then).
 */
import { Effect, Layer, Schedule } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { janitorOf } from "../../platform/Janitor.js"
import { Credentials } from "../Credentials.js"
import { Webhooks } from "./Webhooks.js"

export const PartnerWorkersLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const webhooks = yield* Webhooks
    // The delivery loop never ends by itself; should it die, log and start it again.
    yield* webhooks.run.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("webhook delivery loop failed", cause)),
      Effect.repeat(Schedule.spaced(config.partner.webhookPollInterval)),
      Effect.forkScoped
    )
  })
).pipe(Layer.merge(janitorOf("nonce", "1 minute", Credentials, (credentials) => credentials.purgeNonces)))
