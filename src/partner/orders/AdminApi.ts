/** Admin actions on partner orders (bearer ADMIN_TOKEN): the operator side of the lifecycle. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { AdminAuth } from "../../admin/Auth.js"
import { BadRequest, errorWire, InternalError, Unauthorized } from "../../platform/Errors.js"
import { OrderDetail } from "./Api.js"
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

export class AdminOrdersApi extends HttpApiGroup.make("adminOrders")
  .add(
    HttpApiEndpoint.get("getOrder")`/api/admin/orders/${OrderId}`
      .addSuccess(OrderDetail)
      .addError(errorWire(OrderNotFound))
      .annotate(OpenApi.Summary, "Any partner's order with its timeline")
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
