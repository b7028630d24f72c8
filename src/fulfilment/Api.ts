/**
 * Fulfilment's endpoints: the partner's choice of delivery and the one-time auth code retrieval
 * (HMAC-signed, scope `buy`), and the operators' view of deliveries (bearer ADMIN_TOKEN).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { AdminAuth } from "../admin/Auth.js"
import { PartnerAuth, requiresScope } from "../partner/Auth.js"
import { OrderDetail } from "../partner/orders/Api.js"
import { TRANSFER_STATES } from "../partner/orders/Deliveries.js"
import { OrderMoveNotAllowed, OrderNotFound } from "../partner/orders/Errors.js"
import { documentedAt } from "../platform/http/ApiAnnotations.js"
import { BadRequest, errorWire, InternalError, Unauthorized } from "../platform/http/Errors.js"
import { DeliveryAlreadyStarted, DeliveryNotFound, DeliveryNotRetryable, TransferCodeUnavailable } from "./Errors.js"

export const DeliveryRequest = Schema.Union(
  Schema.Struct({
    method: Schema.Literal("push"),
    target_account: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100), Schema.pattern(/^[\x21-\x7e]+$/))
      .annotations({ description: "Your customer account (handle) at the same registrar" })
  }),
  Schema.Struct({ method: Schema.Literal("auth_code") })
).annotations({
  identifier: "PartnerDeliveryRequest",
  examples: [{ method: "push", target_account: "acme-registrar" }]
})

export const TransferCode = Schema.Struct({
  order_id: Schema.String,
  domain: Schema.String,
  auth_code: Schema.String.annotations({ description: "The EPP authInfo; shown once" })
}).annotations({
  identifier: "PartnerTransferCode",
  examples: [{ order_id: "ord_01jd3k9x0a1b2c3d4e5f6g7h8j", domain: "example.com", auth_code: "Xk9#f2Lq-7Pz" }]
})

const PublicId = HttpApiSchema.param("public_id", Schema.String)

export class PartnerDeliveryApi extends HttpApiGroup.make("partnerDelivery")
  .add(
    HttpApiEndpoint.put("setDelivery")`/api/partner/v1/orders/${PublicId}/delivery`
      .setPayload(DeliveryRequest)
      .addSuccess(OrderDetail)
      .addError(errorWire(OrderNotFound))
      .addError(errorWire(DeliveryAlreadyStarted))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Say where the name goes: a push to your account, or the auth code")
      .annotate(
        OpenApi.Description,
        "Accepted until the delivery starts (held orders included); afterwards 409 conflict. Without a choice the delivery sends the auth code."
      )
      .pipe(requiresScope("buy"), documentedAt("/docs/fulfilment.md#choosing-the-delivery"))
  )
  .add(
    HttpApiEndpoint.get("retrieveAuthCode")`/api/partner/v1/orders/${PublicId}/delivery/auth-code`
      .setUrlParams(Schema.Struct({ token: Schema.String.pipe(Schema.maxLength(1000)) }))
      .addSuccess(TransferCode)
      .addError(errorWire(TransferCodeUnavailable))
      .annotate(OpenApi.Summary, "The auth code, once (the retrieve_url of transfer.auth_code_ready)")
      .annotate(
        OpenApi.Description,
        "The EPP auth code of an order delivered by auth code, to the ordering partner only, once: `token` is the signed, " +
          "short-lived one of the `retrieve_url` in `transfer.auth_code_ready`. A used, expired or foreign token is refused."
      )
      .pipe(requiresScope("buy"), documentedAt("/docs/fulfilment.md#the-auth-code"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: delivery of sold names")
  .annotate(OpenApi.Description, "HMAC-signed (see docs/partner.md); docs/fulfilment.md.")
{}

export const Delivery = Schema.Struct({
  order_id: Schema.String,
  partner_id: Schema.String,
  environment: Schema.Literal("live", "sandbox"),
  domain: Schema.String,
  state: Schema.Literal(...TRANSFER_STATES),
  method: Schema.NullOr(Schema.Literal("push", "auth_code")),
  target: Schema.NullOr(Schema.String),
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  registrar_state: Schema.NullOr(Schema.String),
  started_at: Schema.NullOr(Schema.String),
  updated_at: Schema.String
}).annotations({
  identifier: "AdminDelivery",
  examples: [{
    order_id: "ord_01jd3k9x0a1b2c3d4e5f6g7h8j",
    partner_id: "ptn_01jcz8x7c6v5b4n3m2l1k0j9h8",
    environment: "live",
    domain: "example.com",
    state: "auth_code_ready",
    method: "auth_code",
    target: null,
    attempts: 1,
    last_error: null,
    registrar_state: null,
    started_at: "2026-01-09T14:02:11.000Z",
    updated_at: "2026-01-09T14:02:13.000Z"
  }]
})

const OrderId = HttpApiSchema.param("id", Schema.String.annotations({ description: "The order's public_id" }))
const Note = Schema.Struct({
  note: Schema.optional(Schema.String.pipe(Schema.maxLength(500))).annotations({
    description: "Recorded in the order's timeline"
  })
})

export class AdminDeliveriesApi extends HttpApiGroup.make("adminDeliveries")
  .add(
    HttpApiEndpoint.get("listDeliveries", "/api/admin/deliveries")
      .setUrlParams(Schema.Struct({
        state: Schema.optional(Schema.Literal(...TRANSFER_STATES)),
        limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 500)))
      }))
      .addSuccess(Schema.Struct({ deliveries: Schema.Array(Delivery) }))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Deliveries, most recently changed first (failed ones: ?state=failed)")
      .annotate(
        OpenApi.Description,
        "Every order's delivery with its state, method, target, attempts and last error; `state` filters, `limit` caps (1–500)."
      )
  )
  .add(
    HttpApiEndpoint.post("retryDelivery")`/api/admin/orders/${OrderId}/delivery/retry`
      .setUrlParams(Note)
      .addSuccess(Delivery)
      .addError(errorWire(DeliveryNotFound))
      .addError(errorWire(DeliveryNotRetryable))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Run a failed or stuck delivery again from the start")
      .annotate(
        OpenApi.Description,
        "Queues the delivery again from its first step; `note` goes into the order's timeline with the operator's action."
      )
  )
  .add(
    HttpApiEndpoint.post("markDelivered")`/api/admin/orders/${OrderId}/delivery/mark-delivered`
      .setUrlParams(Note)
      .addSuccess(OrderDetail)
      .addError(errorWire(OrderNotFound))
      .addError(errorWire(OrderMoveNotAllowed))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "The name was delivered by hand: TRANSFER_COMPLETED (the settlement clock starts)")
      .annotate(
        OpenApi.Description,
        "Records a delivery done outside the service: the order moves to TRANSFER_COMPLETED, its timeline names the operator and `note`."
      )
  )
  .middleware(AdminAuth)
  .addError(InternalError)
  .addError(Unauthorized)
  .annotate(OpenApi.Title, "Admin: deliveries")
  .annotate(OpenApi.Description, "Bearer ADMIN_TOKEN. See docs/fulfilment.md#operators.")
{}
