/**
 * Operator commands of partner orders (src/cli.ts puts them under `order`, beside other
 * capabilities' order commands):
 *   order list [--status S] [--partner ID] [--env E] [--domain D] [--limit N] | order show PUBLIC_ID
 *   order hold|clear-review|start-transfer|confirm-delivery|cancel PUBLIC_ID [--note TEXT]
 *   order refund PUBLIC_ID [--reason TEXT]
 * Each change is recorded in the audit log (`cliAction`).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { cliAction } from "../../audit/Actor.js"
import { abort, json, print } from "../../cli/Output.js"
import { ORDER_STATUSES } from "../../domain/OrderState.js"
import { checkLimit, limit } from "../Cli.js"
import { Orders } from "./Orders.js"
import { refundOf } from "./View.js"

const publicId = Args.text({ name: "PUBLIC_ID" })
const note = Options.text("note").pipe(Options.optional, Options.withDescription("Recorded in the order's timeline"))

const orderAction = (
  cmd: string,
  action: "hold" | "clear_review" | "start_transfer" | "confirm_delivery" | "cancel",
  description: string
) =>
  Command.make(cmd, { json, publicId, note }, (o) =>
    Effect.gen(function*() {
      const orders = yield* Orders
      const result = yield* cliAction(
        {
          action: `order.${cmd}`,
          target: o.publicId,
          before: orders.detail(o.publicId),
          after: (r) => ({ status: r.order.status, event_id: r.eventId })
        },
        orders.move(o.publicId, action, { actor: "operator-cli", note: Option.getOrUndefined(o.note) })
      ).pipe(
        Effect.map(Option.some),
        Effect.catchTags({
          OrderNotFound: (e) => Effect.zipRight(abort(e.message, "not_found"), Effect.succeed(Option.none())),
          OrderMoveNotAllowed: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none()))
        })
      )
      if (Option.isNone(result)) return
      const r = result.value
      yield* print(
        o.json,
        { public_id: r.order.id, status: r.order.status, event_id: r.eventId },
        `${r.order.id}: ${r.order.status}${r.eventId ? ` (event ${r.eventId})` : ""}`
      )
    })).pipe(Command.withDescription(description))

const orderRefund = Command.make("refund", {
  json,
  publicId,
  reason: Options.text("reason").pipe(
    Options.optional,
    Options.withDescription("Recorded with the refund and in the order's timeline")
  )
}, (o) =>
  Effect.gen(function*() {
    const reason = Option.getOrNull(o.reason)
    const orders = yield* Orders
    // The refund calls the payment provider between its own transactions: recorded once it succeeded.
    const result = yield* cliAction(
      {
        action: "order.refund",
        target: o.publicId,
        before: orders.detail(o.publicId),
        after: (r) => refundOf(r.order, r.refundId!),
        transactional: false
      },
      orders.operatorRefund(o.publicId, reason, "operator-cli")
    ).pipe(
      Effect.map(Option.some),
      Effect.catchTags({
        OrderNotFound: (e) => Effect.zipRight(abort(e.message, "not_found"), Effect.succeed(Option.none())),
        OrderMoveNotAllowed: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none()))
      })
    )
    if (Option.isNone(result)) return
    const refund = refundOf(result.value.order, result.value.refundId!)
    yield* print(
      o.json,
      refund,
      `${refund.order_id}: REFUNDED ${refund.amount_cents} ${refund.currency} (refund ${refund.refund_id})`
    )
  })).pipe(
    Command.withDescription(
      "Refund any order before TRANSFER_COMPLETED (order.refunded; card payments go back at the provider); marketplace, referral and brokerage sales are refunded only by operators"
    )
  )

const orderList = Command.make("list", {
  json,
  limit,
  status: Options.choice("status", ORDER_STATUSES).pipe(Options.optional),
  partner: Options.text("partner").pipe(Options.optional, Options.withDescription("Only this partner's orders")),
  env: Options.choice("env", ["sandbox", "live"]).pipe(Options.optional),
  domain: Options.text("domain").pipe(Options.optional)
}, (o) =>
  Effect.gen(function*() {
    yield* checkLimit(o.limit)
    const orders = yield* (yield* Orders).listAll({
      status: Option.getOrUndefined(o.status),
      partnerId: Option.getOrUndefined(o.partner),
      environment: Option.getOrUndefined(o.env),
      domain: Option.getOrUndefined(o.domain)?.toLowerCase()
    }, o.limit)
    const lines = orders.map((r) =>
      `${r.public_id}  ${r.status.padEnd(20)} ${r.domain}  ${r.sale_price_cents} ${r.currency}  ${r.created_at}`
    )
    yield* print(o.json, { orders }, orders.length === 0 ? "No orders." : lines.join("\n"))
  })).pipe(Command.withDescription("List orders of every partner, newest first"))

const orderShow = Command.make("show", { json, publicId }, (o) =>
  Effect.gen(function*() {
    const detail = yield* (yield* Orders).detail(o.publicId).pipe(
      Effect.map(Option.some),
      Effect.catchTag("OrderNotFound", (e) =>
        Effect.zipRight(abort(e.message, "not_found"), Effect.succeed(Option.none())))
    )
    if (Option.isNone(detail)) {
      return
    }
    const d = detail.value
    const timeline = d.timeline.map((t) =>
      `  ${t.at}  ${t.status ?? t.step}  by ${t.actor}${t.note ? ` — ${t.note}` : ""}`
    )
    yield* print(
      o.json,
      d,
      [`${d.public_id}  ${d.status}  ${d.domain}  ${d.sale_price_cents} ${d.currency}  (${d.environment})`, ...timeline]
        .join("\n")
    )
  })).pipe(Command.withDescription("One order with its transfer state and timeline"))

/** The `order` commands of the Partner API (src/cli.ts adds other capabilities' order commands to them). */
export const orderSubcommands = [
  orderList,
  orderShow,
  orderAction("hold", "hold", "Hold an EXTERNALLY_PAID order for manual review (order.held)"),
  orderAction("clear-review", "clear_review", "Clear a held order (order.manual_review_cleared)"),
  orderAction("start-transfer", "start_transfer", "Start the domain push (order.transfer_started)"),
  orderAction(
    "confirm-delivery",
    "confirm_delivery",
    "Confirm delivery to the partner's registrar (order.transfer_completed)"
  ),
  orderAction("cancel", "cancel", "Cancel an order before TRANSFER_COMPLETED (order.refunded)"),
  orderRefund
] as const

export const orderDescription = `Partner order lifecycle (statuses: ${ORDER_STATUSES.join(", ")})`
