/**
 * Property tests of the referral rules (src/domain/Referral.ts): last click wins within the
 * window (and the overwritten cookie gives the same answer), bots and repeats are never unique,
 * report windows, and a model test of the affiliate's commission ledger: random clicks,
 * purchases (attributed or not), refunds, deliveries, settlements and payouts posted with the
 * ledger's own rules (src/domain/Ledger.ts); the running balance always agrees with the ledger.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { balancesOf, type Posting, recorded, refunded, type SaleFacts, settled } from "../../src/domain/Ledger.js"
import { commissionOf } from "../../src/domain/Money.js"
import {
  attributionOf,
  classifyClick,
  type Click,
  commissionLedger,
  type CommissionMovement,
  conversionRate,
  DAY_MS,
  destinationOf,
  isBot,
  MAX_WINDOW_DAYS,
  reportWindow,
  utcDay
} from "../../src/domain/Referral.js"
import { payableOf, payoutPostings, saleFacts } from "../support/LedgerModel.js"

const WINDOW = 30 * DAY_MS
const clickArb = fc.record({
  partnerId: fc.constantFrom("ptn_a", "ptn_b", "ptn_c"),
  linkId: fc.constantFrom("lnk_1", "lnk_2", "lnk_3"),
  at: fc.integer({ min: 0, max: 120 * DAY_MS })
})

describe("attribution", () => {
  it("the last click at or before the purchase wins if within the window; else nothing", () => {
    fc.assert(
      fc.property(
        fc.array(clickArb, { maxLength: 20 }),
        fc.integer({ min: 0, max: 150 * DAY_MS }),
        (clicks, purchase) => {
          const got = attributionOf(clicks, purchase, WINDOW)
          const before = clicks.filter((c) => c.at <= purchase)
          const latest = Math.max(...before.map((c) => c.at))
          if (before.length === 0 || purchase - latest > WINDOW) return got === undefined
          return got !== undefined && got.at === latest && purchase - got.at <= WINDOW
        }
      )
    )
  })

  it("the cookie model (each click overwrites it, the purchase checks its age) agrees", () => {
    fc.assert(
      fc.property(fc.array(clickArb, { maxLength: 20 }), fc.integer({ min: 0, max: 30 * DAY_MS }), (clicks, after) => {
        const inOrder = [...clicks].sort((a, b) => a.at - b.at)
        let cookie: Click | undefined
        for (const c of inOrder) cookie = c
        const purchase = (inOrder.at(-1)?.at ?? 0) + after
        const byCookie = cookie !== undefined && purchase - cookie.at <= WINDOW ? cookie : undefined
        const byRule = attributionOf(inOrder, purchase, WINDOW)
        return byCookie?.at === byRule?.at && (byCookie === undefined) === (byRule === undefined)
      })
    )
  })

  it("a later click on another partner's link takes the sale", () => {
    const a = { partnerId: "ptn_a", linkId: "lnk_a", at: 0 }
    const b = { partnerId: "ptn_b", linkId: "lnk_b", at: DAY_MS }
    expect(attributionOf([a, b], 2 * DAY_MS, WINDOW)?.partnerId).toBe("ptn_b")
    expect(attributionOf([a, b], DAY_MS / 2, WINDOW)?.partnerId).toBe("ptn_a")
    expect(attributionOf([a], WINDOW + 1, WINDOW)).toBeUndefined()
  })
})

describe("clicks", () => {
  it("bots: crawlers, unfurlers and scripts are bots; browsers are not", () => {
    for (
      const ua of [
        "Googlebot/2.1 (+http://www.google.com/bot.html)",
        "facebookexternalhit/1.1",
        "curl/8.5.0",
        "python-requests/2.31",
        "",
        "Slackbot-LinkExpanding 1.0"
      ]
    ) {
      expect(isBot(ua), ua).toBe(true)
    }
    for (
      const ua of [
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1"
      ]
    ) {
      expect(isBot(ua), ua).toBe(false)
    }
  })

  it("unique: never a bot; a visitor's click is unique iff their previous one on the link is older than the repeat window", () => {
    const REPEAT = 30 * 60_000
    const ev = fc.record({
      linkId: fc.constantFrom("l1", "l2"),
      visitor: fc.constantFrom("v1", "v2", "v3"),
      bot: fc.boolean(),
      gap: fc.integer({ min: 0, max: 3 * REPEAT })
    })
    fc.assert(fc.property(fc.array(ev, { maxLength: 40 }), (events) => {
      const seen = new Map<string, number>()
      const last = new Map<string, number>()
      let t = 0
      for (const e of events) {
        t += e.gap
        const unique = classifyClick(seen, { ...e, at: t }, REPEAT)
        const key = `${e.linkId}|${e.visitor}`
        const prev = last.get(key)
        if (!e.bot) last.set(key, t)
        const expected = !e.bot && (prev === undefined || t - prev > REPEAT)
        if (unique !== expected) return false
      }
      return true
    }))
  })

  it("destinations: generic → /, domain → /buy/{domain}, product → its page", () => {
    expect(destinationOf({ kind: "generic", domain: null, product: null })).toBe("/")
    expect(destinationOf({ kind: "domain", domain: "example.com", product: null })).toBe("/buy/example.com")
    expect(destinationOf({ kind: "domain", domain: "example.com", product: null, environment: "live" }))
      .toBe("/buy/example.com")
    expect(destinationOf({ kind: "domain", domain: "bold-sandbox.dev", product: null, environment: "sandbox" }))
      .toBe("/buy/bold-sandbox.dev?env=sandbox")
    expect(destinationOf({ kind: "product", domain: null, product: "search" })).toBe("/")
  })
})

describe("report windows", () => {
  const day = fc.integer({ min: 0, max: 3000 }).map((n) => utcDay(Date.UTC(2020, 0, 1) + n * DAY_MS))
  it("accepts from ≤ to up to 366 days (every day listed once), refuses the rest", () => {
    fc.assert(fc.property(day, day, (from, to) => {
      const w = reportWindow(from, to, Date.now())
      const span = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1
      if (span <= 0 || span > MAX_WINDOW_DAYS) return !w.ok
      return w.ok && w.days.length === span && w.days[0] === from && w.days.at(-1) === to
    }))
  })
  it("defaults to the last 30 days; refuses garbage and impossible dates", () => {
    const w = reportWindow(undefined, undefined, Date.UTC(2026, 2, 10, 15))
    expect(w.ok && [w.from, w.to, w.days.length]).toEqual(["2026-02-09", "2026-03-10", 30])
    expect(reportWindow("2026-02-30", undefined, Date.now()).ok).toBe(false)
    expect(reportWindow("yesterday", undefined, Date.now()).ok).toBe(false)
    expect(reportWindow(undefined, "2026-01-01T23:30:00-02:00", Date.now())).toMatchObject({
      ok: true,
      to: "2026-01-02"
    })
  })
  it("conversion is sales per unique click, 0 without clicks", () => {
    expect(conversionRate(1, 3)).toBe(0.3333)
    expect(conversionRate(5, 0)).toBe(0)
  })
})

// ---------------------------------------------------------------------------------------------
// Model test of the commission ledger against the ledger's own postings.

type Op =
  | { readonly op: "click"; readonly partner: "a" | "b"; readonly gapHours: number }
  | { readonly op: "purchase"; readonly cents: number; readonly gapHours: number }
  | { readonly op: "refund"; readonly pick: number }
  | { readonly op: "deliver"; readonly pick: number }
  | { readonly op: "settle" }
  | { readonly op: "payout"; readonly outcome: "paid" | "failed" }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant("click" as const),
    partner: fc.constantFrom("a" as const, "b" as const),
    gapHours: fc.integer({ min: 0, max: 24 * 40 })
  }),
  fc.record({
    op: fc.constant("purchase" as const),
    cents: fc.integer({ min: 0, max: 5_000_000 }),
    gapHours: fc.integer({ min: 0, max: 24 * 20 })
  }),
  fc.record({ op: fc.constant("refund" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("deliver" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("settle" as const) }),
  fc.record({ op: fc.constant("payout" as const), outcome: fc.constantFrom("paid" as const, "failed" as const) })
)

/** What the repository reads off one posting: the change of the commission accounts' credit balances. */
const movementOf = (p: Posting, seq: number): CommissionMovement & { seq: number } => ({
  id: p.key,
  seq,
  kind: p.kind,
  accruedDelta: -p.entries.filter((e) => e.account === "commission_accrued").reduce((n, e) => n + e.amount, 0),
  payableDelta: -p.entries.filter((e) => e.account === "commission_payable").reduce((n, e) => n + e.amount, 0)
})

describe("commission ledger (model test against the ledger)", () => {
  it("running balance = accrued + payable of the ledger, after every step; paid out and reversed reconcile with the orders", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), fc.integer({ min: 1, max: 10_000 }), (ops, minimum) => {
        // Partner a's ledger; clicks of b take a's sales away (last click wins).
        const clicks: Array<Click> = []
        const orders: Array<{ facts: SaleFacts; state: "paid" | "delivered" | "settled" | "refunded" }> = []
        const postings: Array<Posting> = []
        let now = 0
        let payoutN = 0
        let expectedPaidOut = 0
        for (const o of ops) {
          switch (o.op) {
            case "click":
              now += o.gapHours * 3_600_000
              clicks.push({ partnerId: o.partner, linkId: `lnk_${o.partner}`, at: now })
              break
            case "purchase": {
              now += o.gapHours * 3_600_000
              const who = attributionOf(clicks, now, WINDOW)
              if (who?.partnerId !== "a") break
              const facts = saleFacts(`ord_${orders.length}`, o.cents)
              orders.push({ facts, state: "paid" })
              postings.push(recorded(facts))
              break
            }
            case "refund": {
              const open = orders.filter((x) => x.state === "paid")
              const x = open[o.pick % Math.max(1, open.length)]
              if (x) {
                x.state = "refunded"
                postings.push(refunded(x.facts))
              }
              break
            }
            case "deliver": {
              const open = orders.filter((x) => x.state === "paid")
              const x = open[o.pick % Math.max(1, open.length)]
              if (x) x.state = "delivered"
              break
            }
            case "settle":
              for (const x of orders.filter((y) => y.state === "delivered")) {
                x.state = "settled"
                postings.push(settled(x.facts))
              }
              break
            case "payout": {
              const payable = payableOf(postings)
              if (payable < minimum) break
              postings.push(...payoutPostings(`po_${payoutN++}`, payable, o.outcome))
              if (o.outcome === "paid") expectedPaidOut += payable
              break
            }
          }
          // After every step: the ledger's view and the commission ledger agree.
          const books = balancesOf(postings)
          const view = commissionLedger(postings.map(movementOf))
          const owed = -(books.commission_accrued + books.commission_payable)
          if ((view.entries.at(-1)?.balance ?? 0) !== owed) return false
          if (
            view.balance.accrued !== -books.commission_accrued || view.balance.payable !== -books.commission_payable
          ) return false
          if (view.balance.paidOut !== -(books.payouts_in_flight + books.payouts_paid)) return false
        }
        const view = commissionLedger(postings.map(movementOf))
        // Step by step: each balance is the previous plus what the entry moved out of or into the claim.
        let previous = 0
        for (const e of view.entries) {
          if (e.balance !== previous + e.movement.accruedDelta + e.movement.payableDelta || e.balance < 0) return false
          previous = e.balance
        }
        const commissionOfOrders = (states: ReadonlyArray<string>) =>
          orders.filter((x) => states.includes(x.state)).reduce(
            (n, x) => n + commissionOf(x.facts.saleCents, x.facts.commissionBps),
            0
          )
        return (
          view.balance.reversed === commissionOfOrders(["refunded"]) &&
          view.balance.paidOut === expectedPaidOut &&
          previous === commissionOfOrders(["paid", "delivered", "settled"]) - expectedPaidOut &&
          view.entries.every((
            e
          ) => (e.kind === "accrued"
            ? e.amount >= 0
            : e.kind === "reversed" || e.kind === "paid_out"
            ? e.amount <= 0
            : true)
          )
        )
      }),
      { numRuns: 300 }
    )
  })
})
