/** Event history (scope `webhook`): every event of the credential's partner and environment. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt } from "../../platform/http/ApiAnnotations.js"
import { BadRequest, errorWire, InternalError } from "../../platform/http/Errors.js"
import { PartnerAuth, requiresScope } from "../Auth.js"
import { MalformedParameter } from "../Errors.js"

/** The event the examples show: an order recorded (the webhook section shows the same envelope). */
const EVENT_EXAMPLE = {
  id: "evt_01J9Z7Q3K8M2",
  type: "order.recorded",
  created_at: "2026-01-01T12:00:00.000Z",
  data: {
    order: {
      public_id: "ord_01jd3k9x0a1b2c3d4e5f6g7h8j",
      domain: "example.com",
      status: "RECORDED",
      sale_price_cents: 250000,
      currency: "USD"
    }
  }
}

export const PartnerEvent = Schema.Struct({
  id: Schema.String.annotations({ description: "evt_…, sortable: later events have greater ids" }),
  type: Schema.String.annotations({
    description:
      "order.recorded, order.paid, order.held, order.manual_review_cleared, order.transfer_started, order.transfer_completed, order.settled, order.refunded, … (data.order is the order as it is after the event: an order held by the review rule is recorded as MANUAL_REVIEW)"
  }),
  created_at: Schema.String,
  data: Schema.Unknown.annotations({
    description: "For order events: {order: {public_id, domain, status, sale_price_cents, currency}}"
  })
}).annotations({ identifier: "PartnerEvent", examples: [EVENT_EXAMPLE] })

export const EventPage = Schema.Struct({
  events: Schema.Array(PartnerEvent),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "The last event id returned (pass as after_id); null when the page is empty"
  })
}).annotations({
  identifier: "PartnerEventPage",
  examples: [{ events: [EVENT_EXAMPLE], next_cursor: "evt_01J9Z7Q3K8M2" }]
})

export class PartnerEventsApi extends HttpApiGroup.make("partnerEvents")
  .add(
    HttpApiEndpoint.get("listEvents", "/api/partner/v1/events")
      .setUrlParams(Schema.Struct({
        after_id: Schema.optional(Schema.String).annotations({ description: "Return events after this event id" }),
        limit: Schema.optional(Schema.String).annotations({ description: "1–100, default 50" })
      }))
      .addSuccess(EventPage)
      .addError(errorWire(MalformedParameter))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Every event of your account in the order it happened (the envelopes webhooks deliver), after `after_id`; use it to catch up after your endpoint was down. `limit` caps the page. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Event history, oldest first, for catching up after downtime")
      .pipe(requiresScope("webhook"), documentedAt("/docs/partner.md#events"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: events")
  .annotate(OpenApi.Description, "The partner's event feed (the same envelopes as webhooks), paged by cursor")
{}
