/**
 * Background work of the Partner API, on every replica (WORKERS=true):
 * - the webhook deliveries (the durable-queue engine claims with SKIP LOCKED, so replicas share
 *   the queue; see Delivery.ts);
 * - the nonce janitor (expired nonces are deleted; replays are refused until then).
 */
import { Effect, Layer } from "effect"
import { janitorOf } from "../../platform/jobs/Janitor.js"
import { Credentials } from "../Credentials.js"
import { Webhooks } from "./Webhooks.js"

export const PartnerWorkersLive = Layer.scopedDiscard(Effect.flatMap(Webhooks, (webhooks) => webhooks.run)).pipe(
  Layer.merge(janitorOf("nonce", "1 minute", Credentials, (credentials) => credentials.purgeNonces))
)
