/** Handlers of the admin order actions. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../../app/Api.js"
import { operatorAction } from "../../audit/Actor.js"
import { actionOf } from "./AdminApi.js"
import { Orders } from "./Orders.js"
import { refundOf } from "./View.js"

export const AdminOrdersHttpLive = HttpApiBuilder.group(Api, "adminOrders", (handlers) =>
  Effect.gen(function*() {
    const orders = yield* Orders
    return handlers
      .handle("getOrder", ({ path }) => orders.detail(path.id))
      .handle("refundOrder", ({ path, payload }) =>
        // The refund calls the payment provider between its own transactions: recorded once it succeeded.
        operatorAction(
          { action: "order.refund", target: path.id, before: orders.detail(path.id), transactional: false },
          Effect.map(
            orders.operatorRefund(path.id, payload?.reason ?? null, "admin"),
            ({ order, refundId }) => refundOf(order, refundId!)
          )
        ))
      .handle("orderAction", ({ path, urlParams }) =>
        operatorAction(
          { action: `order.${path.action}`, target: path.id, before: orders.detail(path.id) },
          Effect.zipRight(
            orders.move(path.id, actionOf(path.action), { actor: "admin", note: urlParams.note }),
            orders.detail(path.id)
          )
        ))
  }))
