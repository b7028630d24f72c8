/** Handler of the sandbox advance endpoint. From TRANSFER_COMPLETED it runs the settlement code for that one order. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../../app/Api.js"
import { CurrentPartner } from "../Auth.js"
import { Settlement } from "../ledger/Settlement.js"
import { Orders } from "../orders/Orders.js"
import { SandboxOnly } from "./Errors.js"

export const PartnerSandboxHttpLive = HttpApiBuilder.group(Api, "partnerSandbox", (handlers) =>
  Effect.gen(function*() {
    const orders = yield* Orders
    const settlement = yield* Settlement
    return handlers.handle("advance", ({ path }) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        if (partner.environment !== "sandbox") {
          return yield* SandboxOnly.of()
        }
        const current = yield* orders.detail(path.public_id, partner)
        if (current.status === "TRANSFER_COMPLETED") {
          yield* settlement.settleOrderById(path.public_id, `sandbox:${partner.keyId}`)
        } else yield* orders.advanceSandbox(path.public_id, partner)
        return yield* orders.detail(path.public_id, partner)
      }))
  }))
