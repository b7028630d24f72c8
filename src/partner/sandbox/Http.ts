/**
 * Handler of the sandbox advance endpoint: the order's next step. Held → review cleared; paid
 * and being delivered → the delivery's next step, run now (through the sandbox's port to
 * src/fulfilment, ./Deliveries.ts); delivered
 * → the settlement code for that one order. An order with no delivery (recorded before deliveries
 * existed) takes the admin moves instead.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../../app/Api.js"
import { CurrentPartner } from "../Auth.js"
import { Settlement } from "../ledger/Settlement.js"
import { OrderMoveNotAllowed } from "../orders/Errors.js"
import { Orders } from "../orders/Orders.js"
import { SandboxDeliveries } from "./Deliveries.js"
import { SandboxOnly } from "./Errors.js"

const DELIVERING = new Set(["PAID", "EXTERNALLY_PAID", "TRANSFER_IN_PROGRESS"])

export const PartnerSandboxHttpLive = HttpApiBuilder.group(Api, "partnerSandbox", (handlers) =>
  Effect.gen(function*() {
    const orders = yield* Orders
    const settlement = yield* Settlement
    const deliveries = yield* SandboxDeliveries
    return handlers.handle("advance", ({ path }) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        if (partner.environment !== "sandbox") {
          return yield* SandboxOnly.of()
        }
        const current = yield* orders.detail(path.public_id, partner)
        const delivery = DELIVERING.has(current.status)
          ? yield* deliveries.advance(current.public_id)
          : { _tag: "NoDelivery" as const }
        if (delivery._tag === "Failed") {
          return yield* new OrderMoveNotAllowed({
            message: `The delivery of ${current.public_id} failed (${
              delivery.lastError ?? "registrar refusal"
            }): an operator retries it, delivers by hand or refunds the order; there is no sandbox step`
          })
        }
        if (delivery._tag === "NoDelivery") {
          if (current.status === "TRANSFER_COMPLETED") {
            yield* settlement.settleOrderById(path.public_id, `sandbox:${partner.keyId}`)
          } else yield* orders.advanceSandbox(path.public_id, partner)
        }
        return yield* orders.detail(path.public_id, partner)
      }))
  }))
