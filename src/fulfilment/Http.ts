/** Handlers of the delivery endpoints: decode → one service call → the success value. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { operatorAction } from "../audit/Actor.js"
import { CurrentPartner } from "../partner/Auth.js"
import { Fulfilment } from "./Fulfilment.js"

export const PartnerDeliveryHttpLive = HttpApiBuilder.group(
  Api,
  "partnerDelivery",
  (handlers) =>
    Effect.map(Fulfilment, (fulfilment) =>
      handlers
        .handle(
          "setDelivery",
          ({ path, payload }) =>
            Effect.flatMap(CurrentPartner, (partner) => fulfilment.choose(partner, path.public_id, payload))
        )
        .handle("retrieveAuthCode", ({ path, urlParams }) =>
          Effect.flatMap(
            CurrentPartner,
            (partner) => fulfilment.retrieveCode(partner, path.public_id, urlParams.token)
          )))
)

export const AdminDeliveriesHttpLive = HttpApiBuilder.group(
  Api,
  "adminDeliveries",
  (handlers) =>
    Effect.map(Fulfilment, (fulfilment) =>
      handlers
        .handle(
          "listDeliveries",
          ({ urlParams }) =>
            Effect.map(fulfilment.list(urlParams.state, urlParams.limit ?? 100), (deliveries) => ({ deliveries }))
        )
        .handle("retryDelivery", ({ path, urlParams }) =>
          operatorAction(
            { action: "delivery.retry", target: path.id },
            fulfilment.retry(path.id, "admin", urlParams.note)
          ))
        .handle("markDelivered", ({ path, urlParams }) =>
          operatorAction(
            { action: "delivery.mark_delivered", target: path.id },
            fulfilment.markDelivered(path.id, "admin", urlParams.note)
          )))
)
