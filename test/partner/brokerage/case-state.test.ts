/** The brokerage case state machine of CONTRACT.md, exhaustively and by property. */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  CASE_STATUSES,
  type CaseAction,
  type CaseStatus,
  CLOSE_OUTCOMES,
  dealMoney,
  isOpen,
  PATH,
  sandboxStep,
  STATUS_WORDS,
  transition
} from "../../../src/domain/Brokerage.js"

const status = fc.constantFrom(...CASE_STATUSES)
const action: fc.Arbitrary<CaseAction> = fc.oneof(
  fc.constant({ _tag: "advance" } as const),
  fc.constantFrom(...CLOSE_OUTCOMES).map((outcome) => ({ _tag: "close", outcome }) as const)
)
const price = fc.option(fc.oneof(fc.integer({ min: 1, max: 10_000_000_000 }), fc.integer({ min: -1000, max: 0 })), {
  nil: undefined
})
const agreed = fc.option(fc.integer({ min: 1, max: 10_000_000_000 }), { nil: null })

describe("brokerage case state machine", () => {
  it("walks the happy path with advance, a price needed only to close won", () => {
    let s: CaseStatus = "open"
    const seen: Array<CaseStatus> = [s]
    while (s !== "deal_agreed") {
      const t = transition({ status: s, agreedPriceCents: null }, { _tag: "advance" })
      if (!t.ok) throw new Error(t.reason)
      expect(t.events).toEqual(["brokerage.case_updated"])
      s = t.to
      seen.push(s)
    }
    expect(seen).toEqual(PATH.slice(0, 5))
    const noPrice = transition({ status: s, agreedPriceCents: null }, { _tag: "advance" })
    expect(noPrice.ok === false && noPrice.kind).toBe("invalid")
    const won = transition({ status: s, agreedPriceCents: 500_000 }, { _tag: "advance" })
    expect(won).toMatchObject({
      ok: true,
      to: "closed_won",
      priceCents: 500_000,
      events: ["brokerage.case_updated", "brokerage.case_completed"]
    })
  })

  it("lost and cancelled from every open status; nothing from a closed one", () => {
    for (const s of CASE_STATUSES) {
      for (const outcome of ["lost", "cancelled"] as const) {
        const t = transition({ status: s, agreedPriceCents: null }, { _tag: "close", outcome })
        if (isOpen(s)) expect(t).toMatchObject({ ok: true, to: outcome === "lost" ? "closed_lost" : "cancelled" })
        else expect(t).toMatchObject({ ok: false, kind: "conflict" })
      }
    }
  })

  it("property: a move succeeds only from an open status, to the contract's target, with events and price rules", () => {
    fc.assert(fc.property(status, action, price, agreed, (s, a, p, ag) => {
      const t = transition({ status: s, agreedPriceCents: ag }, a, p)
      if (!isOpen(s)) return !t.ok && t.kind === "conflict"
      if (!t.ok) return true
      // Allowed targets: the next on the path, or a close.
      const expected = a._tag === "advance"
        ? PATH[PATH.indexOf(s) + 1]
        : { won: "closed_won", lost: "closed_lost", cancelled: "cancelled" }[a.outcome]
      if (t.to !== expected) return false
      if (t.to === "closed_won") {
        return s === "deal_agreed" && t.priceCents !== null && t.priceCents > 0 &&
          t.events.includes("brokerage.case_completed")
      }
      return !t.events.includes("brokerage.case_completed") && (p === undefined || p > 0)
    }))
  })

  it("property: any random sequence of moves never leaves a closed status and completes at most once", () => {
    fc.assert(fc.property(fc.array(fc.tuple(action, price), { maxLength: 30 }), agreed, (moves, ag) => {
      let s: CaseStatus = "open"
      let completed = 0
      let closedAt: CaseStatus | null = null
      for (const [a, p] of moves) {
        const t = transition({ status: s, agreedPriceCents: ag }, a, p)
        if (closedAt !== null && t.ok) return false
        if (t.ok) {
          completed += t.events.filter((e) => e === "brokerage.case_completed").length
          s = t.to
          if (!isOpen(s)) closedAt = s
        }
      }
      return completed <= 1 && (completed === 1) === (s === "closed_won")
    }))
  })

  it("property: the sandbox walk reaches closed_won in five steps from open, at a positive price", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e12 }), agreed, (budget, ag) => {
      let s: CaseStatus = "open"
      let steps = 0
      let last: number | null = null
      while (isOpen(s)) {
        const t = sandboxStep({ status: s, agreedPriceCents: ag, budgetCents: budget })
        if (!t.ok) return false
        s = t.to
        last = t.priceCents
        steps++
      }
      return s === "closed_won" && steps === 5 && last !== null && last > 0
    }))
  })

  it("property: the partner's share never exceeds the fee, which never exceeds the deal", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e13 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (deal, fee, share) => {
          const m = dealMoney(deal, fee, share)
          return Number.isSafeInteger(m.feeCents) && m.feeCents <= deal && m.partnerShareCents <= m.feeCents &&
            m.partnerShareCents >= 0
        }
      )
    )
  })

  it("has plain words for every status", () => {
    for (const s of CASE_STATUSES) expect(STATUS_WORDS[s].title.length).toBeGreaterThan(0)
  })
})
