/** Admin actions on partner orders (bearer ADMIN_TOKEN): the operator side of the lifecycle. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { AdminAuth } from "../../admin/Auth.js"
import { BadRequest, errorWire, InternalError, Unauthorized } from "../../platform/http/Errors.js"
import { OrderDetail, Refund } from "./Api.js"
import { OrderMoveNotAllowed, OrderNotFound } from "./Errors.js"

export const ADMIN_ORDER_ACTIONS = ["hold", "clear-review", "start-transfer", "confirm-delivery", "cancel"] as const

const OrderId = HttpApiSchema.param("id", Schema.String.annotations({ description: "The order's public_id" }))
const Action = HttpApiSchema.param(
  "action",
  Schema.Literal(...ADMIN_ORDER_ACTIONS).annotations({
    description: "hold | clear-review | start-transfer | confirm-delivery | cancel"
  })
)

export const AdminNote = Schema.Struct({
  note: Schema.optional(Schema.String.pipe(Schema.maxLength(500))).annotations({
    description: "Recorded in the order's timeline"
  })
})

export const AdminRefundRequest = Schema.Struct({
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(500))).annotations({
    description: "Recorded with the refund and in the order's timeline"
  })
}).annotations({ identifier: "AdminRefundRequest", examples: [{ reason: "buyer disputed the charge" }] })

export class AdminOrdersApi extends HttpApiGroup.make("adminOrders")
  .add(
    HttpApiEndpoint.get("getOrder")`/api/admin/orders/${OrderId}`
      .addSuccess(OrderDetail)
      .addError(errorWire(OrderNotFound))
      .annotate(
        OpenApi.Description,
        "Any partner's order by its public id (`ord_…`), with its timeline. Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(OpenApi.Summary, "Any partner's order with its timeline")
  )
  .add(
    HttpApiEndpoint.post("refundOrder")`/api/admin/orders/${OrderId}/refund`
      // The body is optional: none at all (decoded as null) is the same as {}.
      .setPayload(Schema.NullOr(AdminRefundRequest))
      .addSuccess(Refund, { status: 201 })
      .addError(errorWire(OrderNotFound))
      .addError(errorWire(OrderMoveNotAllowed))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Refund any order (marketplace, referral and brokerage sales are refunded only here)")
      .annotate(
        OpenApi.Description,
        "The same refund as the partner's POST /api/partner/v1/refunds, for every order: the order becomes REFUNDED (order.refunded), a reversing ledger transaction is posted in the same transaction, and a card-paid order is refunded at the payment provider. After TRANSFER_COMPLETED: 409 conflict."
      )
  )
  .add(
    HttpApiEndpoint.post("orderAction")`/api/admin/orders/${OrderId}/${Action}`
      .setUrlParams(AdminNote)
      .addSuccess(OrderDetail)
      .addError(errorWire(OrderNotFound))
      .addError(errorWire(OrderMoveNotAllowed))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Move an order: hold, clear-review, start-transfer, confirm-delivery, cancel")
      .annotate(
        OpenApi.Description,
        "Each move writes the status, the timeline and its event (webhook) in one transaction; a move not allowed from the current status is 409 conflict."
      )
  )
  .middleware(AdminAuth)
  .addError(InternalError)
  .addError(Unauthorized)
  .annotate(OpenApi.Title, "Admin: partner orders")
  .annotate(OpenApi.Description, "Bearer ADMIN_TOKEN. See docs/partner.md#admin.")
{}

export const actionOf = (a: typeof ADMIN_ORDER_ACTIONS[number]) =>
  ({
    "hold": "hold",
    "clear-review": "clear_review",
    "start-transfer": "start_transfer",
    "confirm-delivery": "confirm_delivery",
    "cancel": "cancel"
  } as const)[a]
