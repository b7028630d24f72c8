/**
 * Webhook endpoint registration and tooling (scope `webhook`): register, read, delete, test-fire
 * (unversioned paths of the description), the delivery log and redelivery (under /v1).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt } from "../../platform/http/ApiAnnotations.js"
import { BadRequest, errorWire, InternalError } from "../../platform/http/Errors.js"
import { InvalidCursorWire } from "../../platform/http/PageCursor.js"
import { PartnerAuth, requiresScope } from "../Auth.js"
import { MalformedParameter } from "../Errors.js"
import {
  InvalidWebhookSecret,
  InvalidWebhookUrl,
  WebhookDisabled,
  WebhookEndpointNotFound,
  WebhookEventNotFound
} from "./Errors.js"

export const WebhookRegistration = Schema.Struct({
  url: Schema.String.annotations({
    description: "HTTPS URL receiving POSTed events (public address; HTTPS required in production)"
  }),
  secret: Schema.optional(Schema.String.pipe(Schema.minLength(16), Schema.maxLength(256))).annotations({
    description:
      "Omit it and the service issues a `whsec_<base64>` secret (32 random bytes), returned once in this response; each registration without a secret issues a new one. " +
      "Or send your own (16–256 characters): a `whsec_<base64>` secret is base64-decoded for the Standard Webhooks signature (as its libraries do); " +
      "any other secret is used as its UTF-8 bytes, so verify with `new Webhook(Buffer.from(secret, \"utf8\"), { format: \"raw\" })`."
  })
}).annotations({
  identifier: "PartnerWebhookRegistration",
  examples: [{ url: "https://partner.example.net/hooks/marketplace" }]
})

export const WebhookEndpoint = Schema.Struct({
  url: Schema.String,
  active: Schema.Boolean,
  created_at: Schema.String,
  secret: Schema.optional(Schema.String).annotations({
    description: "Only when the service issued the secret (the request had none): `whsec_<base64>`, shown this once"
  })
}).annotations({
  identifier: "PartnerWebhookEndpoint",
  examples: [{
    url: "https://partner.example.net/hooks/marketplace",
    active: true,
    created_at: "2026-01-01T12:00:00.000Z",
    secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
  }]
})

export const WebhookState = Schema.Struct({
  url: Schema.String,
  active: Schema.Boolean,
  state: Schema.Literal("active", "disabled").annotations({
    description: "`disabled` after the receiver answered 410 Gone; register again to re-activate"
  }),
  disabled_reason: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String,
  pending_deliveries: Schema.Number.annotations({ description: "Deliveries queued or waiting for a retry" }),
  last_attempt: Schema.NullOr(
    Schema.Struct({
      at: Schema.String,
      delivery_id: Schema.String,
      status: Schema.NullOr(Schema.Number).annotations({
        description: "The receiver's HTTP status; null when no answer came (timeout, refused…)"
      }),
      duration_ms: Schema.Number,
      error: Schema.NullOr(Schema.String)
    }).annotations({ identifier: "PartnerWebhookAttemptSummary" })
  )
}).annotations({
  identifier: "PartnerWebhookState",
  examples: [{
    url: "https://partner.example.net/hooks/marketplace",
    active: true,
    state: "active" as const,
    disabled_reason: null,
    created_at: "2026-01-01T12:00:00.000Z",
    updated_at: "2026-01-01T12:00:00.000Z",
    pending_deliveries: 0,
    last_attempt: {
      at: "2026-01-01T12:00:01.000Z",
      delivery_id: "whd_01J9Z7Q5T2V6",
      status: 200,
      duration_ms: 84,
      error: null
    }
  }],
  description: "The endpoint of the credential's environment; the secret is never shown again"
})

export const WebhookTestAccepted = Schema.Struct({
  event_id: Schema.String.annotations({
    description: "The `webhook.test` event queued for delivery (also listed in GET /api/partner/v1/events)"
  })
}).annotations({
  identifier: "PartnerWebhookTestAccepted",
  examples: [{ event_id: "evt_01J9Z7R0B4N8" }]
})

export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed", "cancelled")

export const WebhookAttempt = Schema.Struct({
  attempt: Schema.Number,
  started_at: Schema.String,
  status: Schema.NullOr(Schema.Number).annotations({
    description: "HTTP status answered; null when none (timeout, connection refused…)"
  }),
  duration_ms: Schema.Number,
  error: Schema.NullOr(Schema.String),
  response_body: Schema.optional(Schema.NullOr(Schema.String)).annotations({
    description:
      "What the receiver answered: at most its first 4 KiB (4096 bytes), as UTF-8 with invalid bytes replaced; " +
      "null when no answer was read (timeout, reset connection…) or the attempt was made before answers were kept"
  }),
  response_body_truncated: Schema.optional(Schema.Boolean).annotations({
    description: "true when the answer was longer than 4 KiB: `response_body` is its beginning, the rest was not read"
  })
}).annotations({ identifier: "PartnerWebhookAttempt" })

export const WebhookDelivery = Schema.Struct({
  id: Schema.String.annotations({ description: "whd_…; a redelivery is a new delivery of the same event" }),
  event_id: Schema.String,
  event_type: Schema.String,
  status: DeliveryStatus,
  attempt_count: Schema.Number,
  next_attempt_at: Schema.NullOr(Schema.String).annotations({
    description: "When pending: the next attempt's earliest time"
  }),
  last_status: Schema.NullOr(Schema.Number),
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  finished_at: Schema.NullOr(Schema.String),
  attempts: Schema.Array(WebhookAttempt).annotations({ description: "Newest first" })
}).annotations({ identifier: "PartnerWebhookDelivery" })

export const WebhookDeliveryPage = Schema.Struct({
  deliveries: Schema.Array(WebhookDelivery),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as cursor for the next page; null at the end"
  })
}).annotations({
  identifier: "PartnerWebhookDeliveryPage",
  examples: [{
    deliveries: [{
      id: "whd_01J9Z7Q5T2V6",
      event_id: "evt_01J9Z7Q3K8M2",
      event_type: "order.recorded",
      status: "delivered" as const,
      attempt_count: 1,
      next_attempt_at: null,
      last_status: 200,
      last_error: null,
      created_at: "2026-01-01T12:00:00.000Z",
      finished_at: "2026-01-01T12:00:01.000Z",
      attempts: [{
        attempt: 1,
        started_at: "2026-01-01T12:00:01.000Z",
        status: 200,
        duration_ms: 84,
        error: null,
        response_body: "{\"received\":true}",
        response_body_truncated: false
      }]
    }],
    next_cursor: null
  }]
})

export const RedeliverRequest = Schema.Struct({
  event_id: Schema.optional(Schema.String).annotations({ description: "Redeliver this one event (any status)" }),
  since: Schema.optional(Schema.String).annotations({
    description: "RFC 3339 time: redeliver every event whose delivery failed at or after it (with status `failed`)"
  }),
  status: Schema.optional(Schema.Literal("failed")).annotations({
    description: "With `since`: only `failed` (the default)"
  })
}).annotations({
  identifier: "PartnerWebhookRedeliverRequest",
  examples: [{ since: "2026-01-01T00:00:00.000Z", status: "failed" as const }],
  description: "Either `{event_id}` or `{since, status: \"failed\"}`"
})

export const RedeliverAccepted = Schema.Struct({
  queued: Schema.Number.annotations({ description: "New deliveries queued" }),
  already_pending: Schema.Number.annotations({
    description: "Events left alone because a delivery of theirs is already pending"
  })
}).annotations({
  identifier: "PartnerWebhookRedeliverAccepted",
  examples: [{ queued: 3, already_pending: 1 }]
})

export class PartnerWebhooksApi extends HttpApiGroup.make("partnerWebhooks")
  .add(
    HttpApiEndpoint.put("registerWebhook", "/api/partner/webhooks")
      .setPayload(WebhookRegistration)
      .addSuccess(WebhookEndpoint)
      .addError(errorWire(InvalidWebhookUrl))
      .addError(errorWire(InvalidWebhookSecret))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Register or update the webhook url and secret (issued when omitted)")
      .annotate(
        OpenApi.Description,
        "One endpoint per partner and environment. Re-registering re-activates an endpoint disabled by a 410."
      )
      .pipe(requiresScope("webhook"), documentedAt("/docs/partner.md#webhooks"))
  )
  .add(
    HttpApiEndpoint.get("getWebhook", "/api/partner/webhooks")
      .addSuccess(WebhookState)
      .addError(errorWire(WebhookEndpointNotFound))
      .annotate(
        OpenApi.Description,
        "Your registered webhook url, whether it is enabled, and the outcome of its last delivery attempt; the secret is never shown again. 404 when none is registered. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "The webhook endpoint, its state and last delivery attempt (never the secret)")
      .pipe(requiresScope("webhook"), documentedAt("/docs/partner.md#webhook-tooling"))
  )
  .add(
    HttpApiEndpoint.del("deleteWebhook", "/api/partner/webhooks")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(errorWire(WebhookEndpointNotFound))
      .annotate(
        OpenApi.Description,
        "Removes your webhook endpoint and cancels its pending deliveries; events stay readable at GET /api/partner/v1/events. 404 when none is registered. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Remove the webhook endpoint; its pending deliveries are cancelled")
      .pipe(requiresScope("webhook"), documentedAt("/docs/partner.md#webhook-tooling"))
  )
  .add(
    HttpApiEndpoint.post("testWebhook", "/api/partner/webhooks/test")
      .addSuccess(WebhookTestAccepted, { status: 202 })
      .addError(errorWire(WebhookEndpointNotFound))
      .addError(errorWire(WebhookDisabled))
      .annotate(OpenApi.Summary, "Queue a signed `webhook.test` event, delivered like every other event")
      .annotate(
        OpenApi.Description,
        "404 `not_found` without an endpoint; 409 `webhook_disabled` when it was disabled by a 410."
      )
      .pipe(requiresScope("webhook"), documentedAt("/docs/partner.md#webhook-tooling"))
  )
  .add(
    HttpApiEndpoint.get("listWebhookDeliveries", "/api/partner/v1/webhook-deliveries")
      .setUrlParams(Schema.Struct({
        status: Schema.optional(DeliveryStatus),
        event_id: Schema.optional(Schema.String),
        limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))).annotations({
          description: "1–100, default 25"
        }),
        cursor: Schema.optional(Schema.String)
      }))
      .addSuccess(WebhookDeliveryPage)
      .addError(errorWire(MalformedParameter))
      .addError(InvalidCursorWire)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "The deliveries to your endpoint, newest first, each with every attempt's status code, duration, error and the first 4 KiB of the receiver's answer; filter by `status` or `event_id`, page with `limit` and `cursor`. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Delivery log, newest first, each delivery with its attempts")
      .pipe(requiresScope("webhook"), documentedAt("/docs/partner.md#delivery-log"))
  )
  .add(
    HttpApiEndpoint.post("redeliverWebhooks", "/api/partner/v1/webhook-deliveries/redeliver")
      .setPayload(RedeliverRequest)
      .addSuccess(RedeliverAccepted, { status: 202 })
      .addError(errorWire(MalformedParameter))
      .addError(errorWire(WebhookEndpointNotFound))
      .addError(errorWire(WebhookEventNotFound))
      .addError(errorWire(WebhookDisabled))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Redeliver one event, or every event whose delivery failed since a time")
      .annotate(
        OpenApi.Description,
        "Idempotent: an event with a pending delivery is not queued again. `{since}` queues at most 1000 events per call; call again for more. " +
          "404 `not_found` for an unknown event or without an endpoint; 409 `webhook_disabled` when the endpoint was disabled by a 410."
      )
      .pipe(requiresScope("webhook"), documentedAt("/docs/partner.md#redelivery"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: webhooks")
  .annotate(OpenApi.Description, "Register, inspect, test and redeliver the partner's webhook endpoint")
{}
