/**
 * The `webhooks` section of the OpenAPI document: the events POSTed to a partner's registered
 * endpoint, their signing headers (src/partner/webhooks/Delivery.ts) and their envelope
 * (`WebhookEvent`, the same shape as GET /api/partner/v1/events items). Added by `generatorGrade`
 * (OpenApiHeaders.ts).
 */

type Json = Record<string, any>

const WEBHOOK_EVENT_TYPES = [
  "order.recorded",
  "order.paid",
  "order.held",
  "order.manual_review_cleared",
  "order.transfer_started",
  "order.transfer_completed",
  "order.settled",
  "order.refunded",
  "transfer.requested",
  "transfer.auth_code_ready",
  "transfer.pending",
  "transfer.completed",
  "transfer.failed",
  "webhook.test"
]

/** The headers of every delivery (src/partner/webhooks/Delivery.ts); verify one of the two signatures. */
const WEBHOOK_HEADERS: Array<Json> = [
  ["X-Service-Signature", "Lowercase hex HMAC-SHA256 of the raw body, keyed with the endpoint's secret (UTF-8)", {
    type: "string",
    pattern: "^[0-9a-f]{64}$"
  }, "5d41c0a6c1e4c5a3c9b0a9f1d5e1e0c3a2d4b6f8e0c2a4b6d8f0e2c4a6b8d0f2"],
  ["X-Service-Event-Id", "The event's `id` (the same on every retry of it)", { type: "string" }, "evt_01J9Z7Q3K8M2"],
  ["X-Service-Event-Type", "The event's `type`", { type: "string", enum: WEBHOOK_EVENT_TYPES }, "order.recorded"],
  ["X-Service-Timestamp", "Unix time in seconds of this attempt; refuse one far from now (replay)", {
    type: "string",
    pattern: "^[0-9]+$"
  }, "1767225600"],
  ["webhook-id", "Standard Webhooks: the event's `id`", { type: "string" }, "evt_01J9Z7Q3K8M2"],
  ["webhook-timestamp", "Standard Webhooks: Unix time in seconds of this attempt", {
    type: "string",
    pattern: "^[0-9]+$"
  }, "1767225600"],
  [
    "webhook-signature",
    "Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` (a `whsec_` secret is base64-decoded first)",
    { type: "string", pattern: "^v1,[A-Za-z0-9+/]+=*$" },
    "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="
  ]
].map(([name, description, schema, example]) => ({ name, in: "header", required: true, description, schema, example }))

export const webhooks = (): Json => ({
  partnerEvent: {
    post: {
      summary: "An event POSTed to the partner's registered webhook endpoint",
      description:
        "Signed like a Partner API request (see docs/partner.md, Webhooks): verify the signature and timestamp, answer 2xx within the timeout; " +
        "anything else is retried with backoff. The same event can arrive more than once: de-duplicate by `id`.",
      operationId: "webhooks.partnerEvent",
      parameters: WEBHOOK_HEADERS,
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/WebhookEvent" },
            example: {
              id: "evt_01J9Z7Q3K8M2",
              type: "order.recorded",
              created_at: "2026-01-01T00:00:00.000Z",
              data: {
                order: {
                  public_id: "ord_01J9Z7Q3K8M2",
                  domain: "example.com",
                  status: "RECORDED",
                  sale_price_cents: 250000,
                  currency: "USD"
                }
              }
            }
          }
        }
      },
      responses: { "200": { description: "Received; any 2xx stops the retries" } }
    }
  }
})

export const WEBHOOK_EVENT: Json = {
  type: "object",
  description: "The envelope of every webhook event (the same shape as GET /api/partner/v1/events items)",
  required: ["id", "type", "created_at", "data"],
  properties: {
    id: { type: "string", description: "evt_…; de-duplicate by it" },
    type: { type: "string", enum: WEBHOOK_EVENT_TYPES },
    created_at: { type: "string", format: "date-time" },
    data: {
      type: "object",
      description:
        "For order and transfer events: {order: {public_id, domain, status, sale_price_cents, currency}, …}. " +
        "transfer.requested: + transfer {method, target}; transfer.auth_code_ready: + retrieve_url (one-time, signed; " +
        "GET it signed as the partner) and expires_at, never the code; transfer.pending: + registrar_state; " +
        "transfer.completed: + transfer {method}; transfer.failed: + reason, will_retry, action_required (docs/fulfilment.md)"
    }
  }
}
