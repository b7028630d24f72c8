/**
 * Property tests of the money rules (src/domain/Money.ts) and the posting rules
 * (src/domain/Ledger.ts), including a model test: a random sequence of orders, refunds,
 * cancellations, transfers, settlements and payouts keeps the books balanced and reconciled.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  balancesOf,
  isBalanced,
  paidStatements,
  PAYMENT_MODELS,
  type PaymentModel,
  payoutFailed,
  payoutPaid,
  payoutStarted,
  type Posting,
  receipt,
  recorded,
  refunded,
  type SaleFacts,
  serviceCollects,
  settled
} from "../../../src/domain/Ledger.js"
import { add, commissionOf, money, negate, owedOf, subtract } from "../../../src/domain/Money.js"
import { anySale, bps, cents, payableOf, payoutPostings, saleFacts } from "../../support/LedgerModel.js"

describe("Money", () => {
  it("commission is ⌊sale × bps / 10 000⌋, never more than the sale, and owed + commission = sale", () => {
    fc.assert(fc.property(cents, bps, (sale, rate) => {
      const c = commissionOf(sale, rate)
      expect(Number.isSafeInteger(c)).toBe(true)
      expect(c).toBeGreaterThanOrEqual(0)
      expect(c).toBeLessThanOrEqual(sale)
      expect(c * 10_000).toBeLessThanOrEqual(sale * rate)
      expect((c + 1) * 10_000).toBeGreaterThan(sale * rate)
      expect(owedOf(sale, rate) + c).toBe(sale)
    }))
  })

  it("default 10 %: 150000 → 15000; 999 → 99 (rounded down to the cent)", () => {
    expect(commissionOf(150_000, 1000)).toBe(15_000)
    expect(commissionOf(999, 1000)).toBe(99)
  })

  it("add/subtract/negate are exact and refuse to mix currencies or non-integers", () => {
    const amount = fc.integer({ min: -1e12, max: 1e12 })
    fc.assert(fc.property(amount, amount, (a, b) => {
      const x = money(a, "USD")
      const y = money(b, "USD")
      expect(subtract(add(x, y), y)).toEqual(x)
      expect(add(x, negate(x)).cents).toBe(0)
    }))
    expect(() => add(money(1, "USD"), money(1, "EUR"))).toThrow(/EUR/)
    expect(() => money(1.5, "USD")).toThrow()
    expect(() => commissionOf(100, 10_001)).toThrow()
    expect(() => commissionOf(-1, 100)).toThrow()
  })
})

describe("posting rules", () => {
  it("every rule posts a balanced transaction, with a key naming its event", () => {
    fc.assert(fc.property(anySale, cents, (s, amount) => {
      for (
        const p of [
          recorded(s),
          refunded(s),
          settled(s),
          payoutStarted("po_1", amount),
          payoutPaid("po_1", amount),
          payoutFailed("po_1", amount)
        ]
      ) {
        expect(isBalanced(p.entries), JSON.stringify(p)).toBe(true)
      }
      expect(recorded(s).key).toBe(`order:${s.orderId}:recorded`)
    }))
  })

  it("a refund leaves every account as before the sale", () => {
    fc.assert(fc.property(anySale, (s) => {
      const b = balancesOf([recorded(s), refunded(s)])
      expect(Object.values(b).every((v) => v === 0)).toBe(true)
    }))
  })

  it("an unbalanced set of entries is detected", () => {
    expect(isBalanced([{ account: "sales_revenue", amount: -1 }])).toBe(false)
    expect(isBalanced([{ account: "sales_revenue", amount: 0.5 }, { account: "buyer_payments", amount: -0.5 }])).toBe(
      false
    )
  })
})

// ---- the model test -------------------------------------------------------------------------

type Op =
  | { op: "order"; model: PaymentModel; sale: number; bps: number }
  | { op: "refund"; i: number }
  | { op: "complete"; i: number }
  | { op: "settle" }
  | { op: "payout"; minimum: number; fail: boolean }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("order" as const),
      model: fc.constantFrom(...PAYMENT_MODELS),
      sale: fc.integer({ min: 0, max: 5_000_000 }),
      bps
    })
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("refund" as const), i: fc.nat(30) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("complete" as const), i: fc.nat(30) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("settle" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("payout" as const), minimum: fc.nat(100_000), fail: fc.boolean() })
  }
)

interface ModelOrder {
  facts: SaleFacts
  status: "paid" | "completed" | "settled" | "refunded"
}

describe("the books over random operation sequences", () => {
  it("every transaction balances, statements equal their lines, owed + commission = gross of partner-collected sales", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const orders: Array<ModelOrder> = []
        const postings = new Map<string, Posting>()
        const post = (p: Posting) => {
          // Idempotent by natural key: a replay changes nothing.
          if (!postings.has(p.key)) postings.set(p.key, p)
        }
        const statements: Array<
          {
            gross: number
            retained: number
            owed: number
            payable: number
            lines: Array<{ sale: number; commission: number; owed: number; collects: boolean }>
          }
        > = []
        let payouts = 0
        for (const o of ops) {
          if (o.op === "order") {
            const facts = saleFacts(`o${orders.length}`, o.sale, { paymentModel: o.model, commissionBps: o.bps })
            orders.push({ facts, status: "paid" })
            post(recorded(facts))
            post(recorded(facts))
          } else if (o.op === "refund" || o.op === "complete") {
            const order = orders[o.i]
            if (!order || order.status !== "paid") continue
            if (o.op === "refund") {
              order.status = "refunded"
              post(refunded(order.facts))
            } else order.status = "completed"
          } else if (o.op === "settle") {
            const due = orders.filter((x) => x.status === "completed")
            if (due.length === 0) continue
            const lines = due.map((x) => {
              x.status = "settled"
              post(settled(x.facts))
              const c = commissionOf(x.facts.saleCents, x.facts.commissionBps)
              const collects = serviceCollects(x.facts.paymentModel)
              return { sale: x.facts.saleCents, commission: c, owed: collects ? 0 : x.facts.saleCents - c, collects }
            })
            statements.push({
              gross: lines.reduce((a, l) => a + l.sale, 0),
              retained: lines.filter((l) => !l.collects).reduce((a, l) => a + l.commission, 0),
              owed: lines.reduce((a, l) => a + l.owed, 0),
              payable: lines.filter((l) => l.collects).reduce((a, l) => a + l.commission, 0),
              lines
            })
          } else {
            const payable = payableOf(postings.values())
            if (payable <= 0 || payable < o.minimum) continue
            for (const p of payoutPostings(`po_${payouts++}`, payable, o.fail ? "failed" : "paid")) post(p)
          }
        }
        for (const p of postings.values()) expect(isBalanced(p.entries)).toBe(true)
        for (const s of statements) {
          expect(s.gross).toBe(s.lines.reduce((a, l) => a + l.sale, 0))
          expect(s.owed).toBe(s.lines.filter((l) => !l.collects).reduce((a, l) => a + l.sale, 0) - s.retained)
        }
        const live = orders.filter((x) => x.status !== "refunded")
        const pc = live.filter((x) => !serviceCollects(x.facts.paymentModel))
        const b = balancesOf(postings.values())
        const gross = pc.reduce((a, x) => a + x.facts.saleCents, 0)
        const commission = pc.reduce((a, x) => a + commissionOf(x.facts.saleCents, x.facts.commissionBps), 0)
        // total owed (settled or not) + total commission retained = gross of partner-collected sales
        expect(b.partner_receivable + b.partner_receivable_settled + commission).toBe(gross)
        expect(b.partner_receivable_settled).toBe(statements.reduce((a, s) => a + s.owed, 0))
        // Commission the service owes: accrued + payable + in flight + paid out = Σ commission of live service-collected sales
        const sc = live.filter((x) => serviceCollects(x.facts.paymentModel))
        const owedByService = sc.reduce((a, x) => a + commissionOf(x.facts.saleCents, x.facts.commissionBps), 0)
        expect(0 - (b.commission_accrued + b.commission_payable + b.payouts_in_flight + b.payouts_paid)).toBe(
          owedByService
        )
        expect(b.payouts_in_flight).toBe(0)
        expect(Object.values(b).reduce((a, v) => a + v, 0)).toBe(0)
      }),
      { numRuns: 300 }
    )
  })
})

describe("statement status", () => {
  it("paid: payouts cover statements oldest first; never undone; never more than was paid out; nothing-payable stays closed", () => {
    const op = fc.oneof(
      fc.record({ op: fc.constant("settle" as const), payable: fc.oneof(fc.constant(0), fc.nat(200_000)) }),
      fc.record({
        op: fc.constant("payout" as const),
        minimum: fc.integer({ min: 1, max: 100_000 }),
        fail: fc.boolean()
      })
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const statements: Array<{ id: string; payableCents: number }> = []
        let paidOut = 0
        let before: ReadonlySet<string> = new Set()
        for (const o of ops) {
          if (o.op === "settle") {
            statements.push({ id: `stl_${String(statements.length).padStart(4, "0")}`, payableCents: o.payable })
          } else {
            // A payout takes the whole payable balance; a failed one returns it to payable.
            const balance = statements.reduce((a, s) => a + s.payableCents, 0) - paidOut
            if (balance <= 0 || balance < o.minimum) continue
            if (!o.fail) paidOut += balance
          }
          const now = paidStatements(statements, paidOut)
          for (const id of before) expect(now.has(id)).toBe(true)
          const covered = statements.filter((s) => now.has(s.id))
          expect(covered.reduce((a, s) => a + s.payableCents, 0)).toBeLessThanOrEqual(paidOut)
          for (const s of covered) expect(s.payableCents).toBeGreaterThan(0)
          if (o.op === "payout" && !o.fail) {
            for (const s of statements) expect(now.has(s.id)).toBe(s.payableCents > 0)
          }
          before = now
        }
      }),
      { numRuns: 300 }
    )
  })

  it("a paid payout of 500 covers statements of 300 and 200, not a third of 100; one of 0 stays closed", () => {
    const st = [{ id: "stl_1", payableCents: 300 }, { id: "stl_2", payableCents: 0 }, {
      id: "stl_3",
      payableCents: 200
    }, { id: "stl_4", payableCents: 100 }]
    expect([...paidStatements(st, 500)].sort()).toEqual(["stl_1", "stl_3"])
    expect([...paidStatements(st, 299)]).toEqual([])
    expect([...paidStatements(st, 600)].sort()).toEqual(["stl_1", "stl_3", "stl_4"])
  })

  it("receipts pay the oldest amount owed first; a statement with both sides is paid when both are covered", () => {
    const st = [
      { id: "stl_1", payableCents: 0, owedCents: 27_000 },
      { id: "stl_2", payableCents: 600, owedCents: 9_000 },
      { id: "stl_3", payableCents: 0, owedCents: 0 }
    ]
    expect([...paidStatements(st, 0, 26_999)]).toEqual([])
    expect([...paidStatements(st, 0, 27_000)]).toEqual(["stl_1"])
    expect([...paidStatements(st, 0, 36_000)]).toEqual(["stl_1"])
    expect([...paidStatements(st, 600, 35_999)]).toEqual(["stl_1"])
    expect([...paidStatements(st, 600, 36_000)]).toEqual(["stl_1", "stl_2"])
  })

  it("a receipt posting lowers the settled receivable by what was received, balanced", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000_000_000 }), (amount) => {
        const p = receipt("rct_x", amount)
        expect(isBalanced(p.entries)).toBe(true)
        expect(balancesOf([p])).toMatchObject({ partner_receipts: amount, partner_receivable_settled: -amount })
      })
    )
  })

  it("a won brokerage case books the fee as a receivable, never as buyer cash", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000_000 }), fc.integer({ min: 0, max: 10_000 }), (fee, bps) => {
        const b = balancesOf([
          recorded({ orderId: "ord_b", paymentModel: "brokerage", saleCents: fee, commissionBps: bps })
        ])
        expect(b.buyer_payments).toBe(0)
        expect(b.brokerage_fee_receivable).toBe(fee)
      })
    )
  })
})
