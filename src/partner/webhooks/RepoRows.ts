/**
 * The rows of webhook endpoints, deliveries and attempts, as the repository decodes them (a row
 * type is a schema), and the small request schemas its queries share.
 */
import { Schema } from "effect"

export const Environment = Schema.Literal("live", "sandbox")
export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed", "cancelled")
export type DeliveryStatus = typeof DeliveryStatus.Type

export const EndpointRow = Schema.Struct({
  url: Schema.String,
  active: Schema.Boolean,
  disabled_reason: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type EndpointRow = typeof EndpointRow.Type

/** What the delivery worker needs of the endpoint (hot path: only these columns are read and decoded). */
export const DeliveryTarget = Schema.Struct({
  url: Schema.String,
  secret_sealed: Schema.String,
  active: Schema.Boolean
})

export const DeliveryRow = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Number,
  next_attempt_at: Schema.DateFromSelf,
  last_status: Schema.NullOr(Schema.Number),
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  finished_at: Schema.NullOr(Schema.DateFromSelf)
})
export type DeliveryRow = typeof DeliveryRow.Type

export const AttemptRow = Schema.Struct({
  delivery_id: Schema.String,
  attempt: Schema.Number,
  started_at: Schema.DateFromSelf,
  duration_ms: Schema.Number,
  status: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String)
})
export type AttemptRow = typeof AttemptRow.Type

/** An attempt as the delivery log shows it: with what the receiver answered (migration 0364). */
export const LoggedAttemptRow = Schema.Struct({
  ...AttemptRow.fields,
  response_body: Schema.NullOr(Schema.String),
  response_body_truncated: Schema.Boolean
})

/** Most events one `redeliver {since}` call queues; the rest are queued by calling again. */
export const REDELIVER_BATCH = 1000

export const ClaimedDelivery = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  attempts: Schema.Number,
  /** The endpoint's attempts in a row without an answer, when claimed (the breaker, see Delivery.ts). */
  endpoint_failures: Schema.Number
})

/**
 * Which endpoints a claim serves: `healthy` ones (fewer than `threshold` attempts in a row without
 * an answer) up to the per-endpoint cap, or `probe`: endpoints past the threshold whose circuit is
 * no longer open, one delivery at a time.
 */
export type ClaimPool = "healthy" | "probe"
export type ClaimedDelivery = typeof ClaimedDelivery.Type

export const Owner = Schema.Struct({ partnerId: Schema.String, environment: Environment })
export const Id = Schema.Struct({ id: Schema.String })
export const Count = Schema.Struct({ n: Schema.Number })
export const EventId = Schema.Struct({ event_id: Schema.String })
