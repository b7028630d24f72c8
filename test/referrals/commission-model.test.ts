/**
 * Model test through the real service and database: fast-check generates sequences of clicks
 * (two affiliates' links, one browser cookie), purchases (attributed at the seam, written the
 * way the checkout writes them), refunds, deliveries, settlement runs and payout runs; after
 * each sequence every affiliate's `/me/commissions` agrees with the ledger's balances (admin
 * view) and with a model of the orders, entry by entry, and the books verify.
 * (Generated sequences run without shrinking: each step is a real HTTP or database call; the
 * pure twin in test/domain/referral.test.ts shrinks.)
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import fc from "fast-check"
import { commissionOf } from "../../src/domain/Money.js"
import { apiClient } from "../support/ApiClient.js"
import { createPartner } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { follow, moveOrder, paidReferralSale, resolve } from "./ReferralKit.js"

const DAY = 86_400_000

type Op =
  | { readonly op: "click"; readonly who: 0 | 1 }
  | { readonly op: "purchase"; readonly cents: number }
  | { readonly op: "refund"; readonly pick: number }
  | { readonly op: "deliver"; readonly pick: number }
  | { readonly op: "settle" }
  | { readonly op: "payout" }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({ op: fc.constant("click" as const), who: fc.constantFrom(0 as const, 1 as const) }),
    weight: 2
  },
  {
    arbitrary: fc.record({ op: fc.constant("purchase" as const), cents: fc.integer({ min: 1, max: 500_000 }) }),
    weight: 3
  },
  { arbitrary: fc.record({ op: fc.constant("refund" as const), pick: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("deliver" as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant("settle" as const) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("payout" as const) }), weight: 1 }
)

layer(TestServer.layer({ PAYOUT_MINIMUM_CENTS: "1" }), { timeout: 600_000 })("commission ledger model", (it) => {
  it.effect("random clicks, purchases, refunds, settlements and payouts: /me/commissions agrees with the ledger and the orders", () =>
    Effect.gen(function*() {
      const sequences = fc.sample(fc.array(opArb, { minLength: 6, maxLength: 14 }), {
        numRuns: 4,
        seed: Number(process.env.FC_SEED ?? 20261124)
      })
      const admin = yield* apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN })
      for (const ops of sequences) {
        const creds = [
          yield* createPartner({ scopes: ["refer", "report"], affiliate: true }),
          yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
        ]
        const clients = [yield* apiClient({ partner: creds[0]! }), yield* apiClient({ partner: creds[1]! })]
        const codes: Array<string> = []
        for (const client of clients) {
          codes.push((yield* client.partnerReferrals.createLink({ payload: { kind: "generic" } })).code)
        }
        let cookie: string | undefined
        const orders: Array<
          { id: string; who: number; cents: number; state: "paid" | "delivered" | "settled" | "refunded" }
        > = []
        const paidOut = [0, 0]
        for (const o of ops) {
          switch (o.op) {
            case "click":
              cookie = (yield* follow(codes[o.who]!)).cookie
              break
            case "purchase": {
              const a = yield* resolve(cookie, new Date())
              if (Option.isNone(a)) break
              const who = creds.findIndex((c) => c.partner_id === a.value.partnerId)
              orders.push({
                id: yield* paidReferralSale(a.value, `m${orders.length}.com`, o.cents),
                who,
                cents: o.cents,
                state: "paid"
              })
              break
            }
            case "refund": {
              const open = orders.filter((x) => x.state === "paid")
              const x = open[o.pick % Math.max(1, open.length)]
              if (x) {
                yield* moveOrder(x.id, "refund")
                x.state = "refunded"
              }
              break
            }
            case "deliver": {
              const open = orders.filter((x) => x.state === "paid")
              const x = open[o.pick % Math.max(1, open.length)]
              if (x) {
                yield* moveOrder(x.id, "start_transfer")
                yield* moveOrder(x.id, "confirm_delivery")
                x.state = "delivered"
              }
              break
            }
            case "settle":
              // A 200 (the only status decoding as SettlementRunResult), or the call fails.
              yield* admin.adminMoney.runSettlement({
                urlParams: { as_of: new Date(Date.now() + 8 * DAY).toISOString() }
              })
              for (const x of orders) if (x.state === "delivered") x.state = "settled"
              break
            case "payout": {
              const run = yield* admin.adminMoney.runPayouts()
              for (const p of run.payouts) {
                const who = creds.findIndex((c) => c.partner_id === p.partner_id)
                if (who >= 0 && p.status === "paid") paidOut[who]! += p.amount_cents
              }
              break
            }
          }
        }
        for (const [who, cred] of creds.entries()) {
          const mine = orders.filter((x) => x.who === who)
          const commission = (states: ReadonlyArray<string>) =>
            mine.filter((x) => states.includes(x.state)).reduce((n, x) => n + commissionOf(x.cents, 1000), 0)
          // Only a 200 decodes as CommissionPage; anything else fails the call.
          const page = yield* clients[who]!.partnerReferrals.myCommissions({ urlParams: { limit: 100 } })
          const ledger = yield* admin.adminMoney.ledgerBalance({
            urlParams: { partner: cred.partner_id, env: "sandbox" }
          })
          expect(page.balance, JSON.stringify(ops)).toEqual({
            accrued_cents: ledger.commission_accrued_cents,
            payable_cents: ledger.commission_payable_cents,
            paid_out_cents: ledger.paid_out_cents,
            reversed_cents: commission(["refunded"])
          })
          expect(ledger.commission_accrued_cents).toBe(commission(["paid", "delivered"]))
          expect(ledger.paid_out_cents).toBe(paidOut[who])
          // The running balance, oldest first: each step adds its amount (payable moves nothing), ending at what is owed.
          let running = 0
          for (const e of page.entries) {
            if (!(e.kind === "payable" && e.payout_id === null)) running += e.amount_cents
            expect(e.balance_cents).toBe(running)
            expect(e.balance_cents).toBeGreaterThanOrEqual(0)
          }
          expect(running).toBe(commission(["paid", "delivered", "settled"]) - paidOut[who]!)
          expect(page.entries.filter((e) => e.kind === "accrued")).toHaveLength(mine.length)
        }
      }
      const verify = yield* admin.adminMoney.verifyLedger()
      expect(verify.problems, JSON.stringify(verify)).toEqual([])
    }))
})
