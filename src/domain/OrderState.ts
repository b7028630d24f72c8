/**
 * The partner order state machine (docs/partner.md). Pure: which moves exist, which
 * event each emits, and what the sandbox `advance` step does next.
 *
 * A hosted-checkout or referral sale starts PAID (the service collected the money, event
 * `order.paid`) and moves on like EXTERNALLY_PAID, except that it is never held for review:
 *   PAID ──start_transfer──▶ TRANSFER_IN_PROGRESS;  PAID ──refund|cancel──▶ REFUNDED|CANCELLED
 *
 *   EXTERNALLY_PAID ──hold──────────────▶ MANUAL_REVIEW ──clear_review──▶ EXTERNALLY_PAID
 *   EXTERNALLY_PAID ──start_transfer────▶ TRANSFER_IN_PROGRESS ──confirm_delivery──▶ TRANSFER_COMPLETED
 *   TRANSFER_COMPLETED ──settle─────────▶ SETTLED
 *   EXTERNALLY_PAID | MANUAL_REVIEW | TRANSFER_IN_PROGRESS ──refund──▶ REFUNDED
 *                                                          ──cancel──▶ CANCELLED
 * Any other move is refused (409).
 */
import { Schema } from "effect"

export const ORDER_STATUSES = [
  "EXTERNALLY_PAID",
  "PAID",
  "MANUAL_REVIEW",
  "TRANSFER_IN_PROGRESS",
  "TRANSFER_COMPLETED",
  "SETTLED",
  "REFUNDED",
  "CANCELLED"
] as const
export type OrderStatus = typeof ORDER_STATUSES[number]
/** An order status on the wire (the orders', ledger's and referrals' schemas). */
export const OrderStatusSchema = Schema.Literal(...ORDER_STATUSES).annotations({ title: "OrderStatus" })

export const ORDER_ACTIONS = [
  "hold",
  "clear_review",
  "start_transfer",
  "confirm_delivery",
  "settle",
  "refund",
  "cancel"
] as const
export type OrderAction = typeof ORDER_ACTIONS[number]

export const ORDER_EVENT_TYPES = [
  "order.recorded",
  "order.paid",
  "order.held",
  "order.manual_review_cleared",
  "order.transfer_started",
  "order.transfer_completed",
  "order.settled",
  "order.refunded"
] as const
export type OrderEventType = typeof ORDER_EVENT_TYPES[number]

interface Move {
  readonly from: ReadonlyArray<OrderStatus>
  readonly to: OrderStatus
  /** The event written with the move (it carries the order as it is after the move). */
  readonly event: OrderEventType | null
  /** Transfer step recorded in the timeline with the move, if any. */
  readonly transferStep: string | null
}

export const MOVES: Readonly<Record<OrderAction, Move>> = {
  hold: { from: ["EXTERNALLY_PAID"], to: "MANUAL_REVIEW", event: "order.held", transferStep: null },
  clear_review: {
    from: ["MANUAL_REVIEW"],
    to: "EXTERNALLY_PAID",
    event: "order.manual_review_cleared",
    transferStep: null
  },
  start_transfer: {
    from: ["EXTERNALLY_PAID", "PAID"],
    to: "TRANSFER_IN_PROGRESS",
    event: "order.transfer_started",
    transferStep: "push_initiated"
  },
  confirm_delivery: {
    from: ["TRANSFER_IN_PROGRESS"],
    to: "TRANSFER_COMPLETED",
    event: "order.transfer_completed",
    transferStep: "delivered"
  },
  settle: { from: ["TRANSFER_COMPLETED"], to: "SETTLED", event: "order.settled", transferStep: null },
  refund: {
    from: ["EXTERNALLY_PAID", "PAID", "MANUAL_REVIEW", "TRANSFER_IN_PROGRESS"],
    to: "REFUNDED",
    event: "order.refunded",
    transferStep: null
  },
  cancel: {
    from: ["EXTERNALLY_PAID", "PAID", "MANUAL_REVIEW", "TRANSFER_IN_PROGRESS"],
    to: "CANCELLED",
    event: "order.refunded",
    transferStep: null
  }
}

export const TERMINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(["SETTLED", "REFUNDED", "CANCELLED"])

export type Transition =
  | {
    readonly ok: true
    readonly from: OrderStatus
    readonly to: OrderStatus
    readonly event: OrderEventType | null
    readonly transferStep: string | null
  }
  | { readonly ok: false; readonly from: OrderStatus; readonly reason: string }

/**
 * What each action does to an order, as the object of "Cannot …" in a refusal: every action
 * reads as a sentence ("Cannot start the transfer of an order in status MANUAL_REVIEW").
 */
export const ACTION_PHRASES: Readonly<Record<OrderAction, string>> = {
  hold: "hold an order for manual review",
  clear_review: "clear the manual review of an order",
  start_transfer: "start the transfer of an order",
  confirm_delivery: "confirm the delivery of an order",
  settle: "settle an order",
  refund: "refund an order",
  cancel: "cancel an order"
}

/** Human text for a refused move, e.g. for the 409 message. */
const refusal = (action: OrderAction, from: OrderStatus): string => {
  if ((action === "refund" || action === "cancel") && (from === "TRANSFER_COMPLETED" || from === "SETTLED")) {
    return `Refunds and cancellations are accepted only before TRANSFER_COMPLETED; this order is ${from}`
  }
  if (from === "REFUNDED" || from === "CANCELLED") {
    return `The order is already ${from}; no further changes are possible`
  }
  return `Cannot ${ACTION_PHRASES[action]} in status ${from} (allowed from ${MOVES[action].from.join(", ")})`
}

export const transition = (from: OrderStatus, action: OrderAction): Transition => {
  const move = MOVES[action]
  return move.from.includes(from)
    ? { ok: true, from, to: move.to, event: move.event, transferStep: move.transferStep }
    : { ok: false, from, reason: refusal(action, from) }
}

/** Status of a newly recorded order: held for manual review at or above the threshold. */
export const initialStatus = (salePriceCents: number, reviewThresholdCents: number): OrderStatus =>
  salePriceCents >= reviewThresholdCents ? "MANUAL_REVIEW" : "EXTERNALLY_PAID"

/** The next admin step the sandbox `advance` endpoint performs, or undefined at the end. */
export const nextSandboxAction = (status: OrderStatus): OrderAction | undefined => {
  switch (status) {
    case "MANUAL_REVIEW":
      return "clear_review"
    case "EXTERNALLY_PAID":
    case "PAID":
      return "start_transfer"
    case "TRANSFER_IN_PROGRESS":
      return "confirm_delivery"
    case "TRANSFER_COMPLETED":
      return "settle"
    default:
      return undefined
  }
}
