/** The order state machine of CONTRACT.md, exhaustively and by property. */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  initialStatus,
  MOVES,
  nextSandboxAction,
  ORDER_ACTIONS,
  ORDER_STATUSES,
  type OrderStatus,
  TERMINAL_STATUSES,
  transition
} from "../../../src/domain/OrderState.js"

const ALLOWED: ReadonlyArray<readonly [OrderStatus, string, OrderStatus]> = [
  ["EXTERNALLY_PAID", "hold", "MANUAL_REVIEW"],
  ["MANUAL_REVIEW", "clear_review", "EXTERNALLY_PAID"],
  ["EXTERNALLY_PAID", "start_transfer", "TRANSFER_IN_PROGRESS"],
  ["TRANSFER_IN_PROGRESS", "confirm_delivery", "TRANSFER_COMPLETED"],
  ["TRANSFER_COMPLETED", "settle", "SETTLED"],
  ["EXTERNALLY_PAID", "refund", "REFUNDED"],
  ["PAID", "start_transfer", "TRANSFER_IN_PROGRESS"],
  ["PAID", "refund", "REFUNDED"],
  ["PAID", "cancel", "CANCELLED"],
  ["MANUAL_REVIEW", "refund", "REFUNDED"],
  ["TRANSFER_IN_PROGRESS", "refund", "REFUNDED"],
  ["EXTERNALLY_PAID", "cancel", "CANCELLED"],
  ["MANUAL_REVIEW", "cancel", "CANCELLED"],
  ["TRANSFER_IN_PROGRESS", "cancel", "CANCELLED"]
]

describe("order state machine", () => {
  it("allows exactly the moves of CONTRACT.md", () => {
    for (const from of ORDER_STATUSES) {
      for (const action of ORDER_ACTIONS) {
        const expected = ALLOWED.find(([f, a]) => f === from && a === action)
        const t = transition(from, action)
        expect(t.ok, `${from} ${action}`).toBe(expected !== undefined)
        if (t.ok) expect(t.to).toBe(expected![2])
      }
    }
  })

  it("emits the described events", () => {
    expect(MOVES.hold.event).toBe("order.held")
    expect(MOVES.clear_review.event).toBe("order.manual_review_cleared")
    expect(MOVES.start_transfer.event).toBe("order.transfer_started")
    expect(MOVES.confirm_delivery.event).toBe("order.transfer_completed")
    expect(MOVES.settle.event).toBe("order.settled")
    expect(MOVES.refund.event).toBe("order.refunded")
    expect(MOVES.cancel.event).toBe("order.refunded")
  })

  it("refund after TRANSFER_COMPLETED is refused with a clear reason", () => {
    const t = transition("TRANSFER_COMPLETED", "refund")
    expect(t.ok).toBe(false)
    if (!t.ok) expect(t.reason).toContain("only before TRANSFER_COMPLETED")
  })

  it("review rule: at or above the threshold is held", () => {
    expect(initialStatus(2_499_999, 2_500_000)).toBe("EXTERNALLY_PAID")
    expect(initialStatus(2_500_000, 2_500_000)).toBe("MANUAL_REVIEW")
  })

  it("property: any action sequence never leaves a terminal status, and refunds never follow delivery", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(...ORDER_STATUSES),
        fc.array(fc.constantFrom(...ORDER_ACTIONS), { maxLength: 30 }),
        (start, actions) => {
          let status = start
          let delivered = start === "TRANSFER_COMPLETED" || start === "SETTLED"
          for (const a of actions) {
            const t = transition(status, a)
            if (TERMINAL_STATUSES.has(status)) expect(t.ok).toBe(false)
            if (!t.ok) continue
            expect(t.from).toBe(status)
            if (delivered) expect(t.to === "REFUNDED" || t.to === "CANCELLED").toBe(false)
            status = t.to
            if (status === "TRANSFER_COMPLETED") delivered = true
          }
        }
      )
    ))

  it("property: sandbox advance from any status reaches SETTLED through allowed moves, or stops at a terminal status", () =>
    fc.assert(
      fc.property(fc.constantFrom(...ORDER_STATUSES), (start) => {
        let status: OrderStatus = start
        for (let i = 0; i < 10; i++) {
          const a = nextSandboxAction(status)
          if (a === undefined) break
          const t = transition(status, a)
          expect(t.ok).toBe(true)
          if (t.ok) status = t.to
        }
        expect(TERMINAL_STATUSES.has(status)).toBe(true)
        if (start !== "REFUNDED" && start !== "CANCELLED") expect(status).toBe("SETTLED")
      })
    ))
})

describe("refusal messages", () => {
  it("every refused move reads as a sentence naming the action, the status and where it is allowed from", () => {
    for (const action of ORDER_ACTIONS) {
      for (const from of ORDER_STATUSES) {
        const t = transition(from, action)
        if (t.ok) continue
        expect(t.reason).toMatch(
          /^(Cannot (hold an order for manual review|clear the manual review of an order|start the transfer of an order|confirm the delivery of an order|settle an order|refund an order|cancel an order) in status [A-Z_]+ \(allowed from [A-Z_, ]+\)|Refunds and cancellations are accepted only before TRANSFER_COMPLETED; this order is [A-Z_]+|The order is already [A-Z_]+; no further changes are possible)$/
        )
        expect(t.reason).toContain(from)
      }
    }
    const t = transition("MANUAL_REVIEW", "start_transfer")
    expect(!t.ok && t.reason).toBe(
      "Cannot start the transfer of an order in status MANUAL_REVIEW (allowed from EXTERNALLY_PAID, PAID)"
    )
  })
})
