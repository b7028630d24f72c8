/** The seller-of-record rule (src/domain/RefundAuthority.ts), for every order and caller. */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { PAYMENT_MODELS } from "../../src/domain/Ledger.js"
import { partnerMayRefund } from "../../src/domain/RefundAuthority.js"

const partner = fc.constantFrom("ptn_a", "ptn_b", "ptn_marketplace")
const environment = fc.constantFrom("live", "sandbox")
const order = fc.record({ partnerId: partner, environment, paymentModel: fc.constantFrom(...PAYMENT_MODELS) })
const caller = fc.record({ partnerId: fc.constantFrom("ptn_a", "ptn_b"), environment })

describe("who refunds an order", () => {
  it("a partner refunds exactly its own partner-collected and hosted-checkout orders of its environment", () =>
    fc.assert(fc.property(order, caller, (o, c) => {
      const own = o.partnerId === c.partnerId && o.environment === c.environment
      const sold = o.paymentModel === "partner_collected" || o.paymentModel === "hosted_checkout"
      expect(partnerMayRefund(o, c)).toBe(own && sold)
    })))

  it("referral and brokerage orders are never a partner's to refund, not even the holder's", () =>
    fc.assert(fc.property(caller, fc.constantFrom("referral" as const, "brokerage" as const), (c, paymentModel) => {
      expect(partnerMayRefund({ ...c, paymentModel }, c)).toBe(false)
    })))
})
