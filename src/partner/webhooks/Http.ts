/** Handler of PUT /api/partner/webhooks. */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../../app/Api.js"
import { CurrentPartner } from "../Auth.js"
import { Webhooks } from "./Webhooks.js"

export const PartnerWebhooksHttpLive = HttpApiBuilder.group(Api, "partnerWebhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers.handle("registerWebhook", ({ payload }) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        return yield* webhooks.register(partner, payload.url.trim(), payload.secret)
      }).pipe(Effect.catchTag("SqlError", Effect.die)))
  }))
