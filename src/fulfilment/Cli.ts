/**
 * Operator commands of fulfilment (under `order`, beside the Partner API's):
 *   order deliveries [--state S] [--limit N] [--json]
 *   order retry-delivery PUBLIC_ID [--note TEXT] [--json]
 *   order mark-delivered PUBLIC_ID [--note TEXT] [--json]
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { cliAction } from "../audit/Actor.js"
import { abort, json, print } from "../cli/Output.js"
import { TRANSFER_STATES } from "../partner/orders/Deliveries.js"
import { Fulfilment } from "./Fulfilment.js"

const publicId = Args.text({ name: "PUBLIC_ID" })
const note = Options.text("note").pipe(Options.optional, Options.withDescription("Recorded in the order's timeline"))

const deliveries = Command.make("deliveries", {
  json,
  state: Options.choice("state", TRANSFER_STATES).pipe(Options.optional, Options.withDescription("Only this state")),
  limit: Options.integer("limit").pipe(Options.withDefault(100))
}, (o) =>
  Effect.gen(function*() {
    const rows = yield* (yield* Fulfilment).list(Option.getOrUndefined(o.state), Math.max(1, Math.min(o.limit, 500)))
    const lines = rows.map((d) =>
      `${d.order_id}  ${d.state}  ${d.domain}  ${d.method ?? "-"}  attempts ${d.attempts}${
        d.last_error ? `  ${d.last_error}` : ""
      }`
    )
    yield* print(o.json, rows, rows.length === 0 ? "No deliveries." : lines.join("\n"))
  })).pipe(Command.withDescription("Deliveries of sold names, most recently changed first (stuck or failed: --state)"))

const retryDelivery = Command.make("retry-delivery", { json, publicId, note }, (o) =>
  Effect.gen(function*() {
    const fulfilment = yield* Fulfilment
    const d = yield* cliAction(
      { action: "delivery.retry", target: o.publicId },
      fulfilment.retry(o.publicId, "operator-cli", Option.getOrUndefined(o.note))
    ).pipe(
      Effect.catchTags({
        DeliveryNotFound: (e) => abort(e.message, "not_found"),
        DeliveryNotRetryable: (e) => abort(e.message, "conflict")
      })
    )
    yield* print(o.json, d, `${d.order_id}: delivery ${d.state} again`)
  })).pipe(Command.withDescription("Run a failed or stuck delivery again from the start (recorded in the timeline)"))

const markDelivered = Command.make("mark-delivered", { json, publicId, note }, (o) =>
  Effect.gen(function*() {
    const fulfilment = yield* Fulfilment
    const d = yield* cliAction(
      { action: "delivery.mark_delivered", target: o.publicId },
      fulfilment.markDelivered(o.publicId, "operator-cli", Option.getOrUndefined(o.note))
    ).pipe(
      Effect.catchTags({
        OrderNotFound: (e) => abort(e.message, "not_found"),
        OrderMoveNotAllowed: (e) => abort(e.message, "conflict")
      })
    )
    yield* print(o.json, d, `${d.public_id}: ${d.status} (delivered by hand)`)
  })).pipe(Command.withDescription("The name was delivered by hand: TRANSFER_COMPLETED (order.transfer_completed)"))

export const orderDeliveryCommands = [deliveries, retryDelivery, markDelivered] as const
