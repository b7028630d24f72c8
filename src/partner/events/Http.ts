/** Handler of GET /events. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../../app/Api.js"
import { isId } from "../../platform/Ids.js"
import { CurrentPartner } from "../Auth.js"
import { MalformedParameter } from "../Errors.js"
import { Outbox } from "./Outbox.js"

export const PartnerEventsHttpLive = HttpApiBuilder.group(Api, "partnerEvents", (handlers) =>
  Effect.gen(function*() {
    const outbox = yield* Outbox
    return handlers.handle("listEvents", ({ urlParams }) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        const rawLimit = urlParams.limit ?? "50"
        if (!/^\d{1,3}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 100) {
          return yield* MalformedParameter.of("limit: must be an integer from 1 to 100")
        }
        const after = urlParams.after_id ?? null
        if (after !== null && !isId("evt", after)) {
          return yield* MalformedParameter.of("after_id: must be an event id (evt_…)")
        }
        const rows = yield* outbox.list(partner.partnerId, partner.environment, after, Number(rawLimit))
        const last = rows[rows.length - 1]
        return {
          events: rows.map((e) => ({ id: e.id, type: e.type, created_at: e.created_at.toISOString(), data: e.data })),
          next_cursor: last ? last.id : null
        }
      }))
  }))
