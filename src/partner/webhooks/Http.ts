/** Handlers of the webhook endpoint (PUT/GET/DELETE, test) and of the delivery log and redelivery. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../../app/Api.js"
import { pageCursor, PAGED_LISTS } from "../../platform/http/PageCursor.js"
import { isId } from "../../platform/Ids.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { CurrentPartner } from "../Auth.js"
import { MalformedParameter } from "../Errors.js"
import { Webhooks } from "./Webhooks.js"

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/

export const PartnerWebhooksHttpLive = HttpApiBuilder.group(
  Api,
  "partnerWebhooks",
  (handlers) =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const secrets = yield* ServiceSecret
      return handlers
        .handle("registerWebhook", ({ payload }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            return yield* webhooks.register(partner, payload.url.trim(), payload.secret)
          }))
        .handle("getWebhook", () => Effect.flatMap(CurrentPartner, webhooks.show))
        .handle("deleteWebhook", () => Effect.flatMap(CurrentPartner, webhooks.remove))
        .handle("testWebhook", () => Effect.flatMap(CurrentPartner, webhooks.test))
        .handle("listWebhookDeliveries", ({ urlParams }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            if (urlParams.event_id !== undefined && !isId("evt", urlParams.event_id)) {
              return yield* MalformedParameter.of("event_id: must be an event id (evt_…)", [{
                path: ["event_id"],
                message: "must be an event id (evt_…)"
              }])
            }
            const cursor = pageCursor(secrets, PAGED_LISTS.webhookDeliveries, partner.credentialId, [
              urlParams.status ?? null,
              urlParams.event_id ?? null
            ])
            const before = yield* cursor.read(urlParams.cursor)
            const page = yield* webhooks.deliveries(
              partner,
              { status: urlParams.status, eventId: urlParams.event_id },
              before,
              urlParams.limit ?? 25
            )
            const last = page.deliveries[page.deliveries.length - 1]
            return {
              deliveries: page.deliveries,
              next_cursor: cursor.next(last?.id, page.hasMore)
            }
          }))
        .handle("redeliverWebhooks", ({ payload }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            const hasEvent = payload.event_id !== undefined
            const hasSince = payload.since !== undefined
            if (hasEvent === hasSince) {
              return yield* MalformedParameter.of("send either event_id, or since (with status \"failed\")", [{
                path: [],
                message: "exactly one of event_id and since"
              }])
            }
            if (hasEvent) {
              if (payload.status !== undefined) {
                return yield* MalformedParameter.of("status: only with since", [{
                  path: ["status"],
                  message: "only with since"
                }])
              }
              if (!isId("evt", payload.event_id!)) {
                return yield* MalformedParameter.of("event_id: must be an event id (evt_…)", [{
                  path: ["event_id"],
                  message: "must be an event id (evt_…)"
                }])
              }
              return yield* webhooks.redeliver(partner, { eventId: payload.event_id! })
            }
            const since = payload.since!
            if (!RFC3339.test(since) || Number.isNaN(Date.parse(since))) {
              return yield* MalformedParameter.of("since: must be an RFC 3339 time such as 2026-01-31T00:00:00Z", [{
                path: ["since"],
                message: "must be an RFC 3339 time"
              }])
            }
            return yield* webhooks.redeliver(partner, { since: new Date(since) })
          }))
    })
)
