/**
 * Fixtures of the ledger model tests (test/partner/ledger/rules.test.ts, test/domain/referral.test.ts):
 * amounts and rates as arbitraries, a sale's facts, and a payout as the ledger posts it, so both
 * models build their books the same way.
 */
import fc from "fast-check"
import {
  balancesOf,
  PAYMENT_MODELS,
  type PaymentModel,
  payoutFailed,
  payoutPaid,
  payoutStarted,
  type Posting,
  type SaleFacts
} from "../../src/domain/Ledger.js"

/** Amounts in cents up to $100M. */
export const cents = fc.integer({ min: 0, max: 10_000_000_000 })
/** Commission rates in basis points, 0–100 %. */
export const bps = fc.integer({ min: 0, max: 10_000 })

/** A sale's facts; by default a referral sale at the default 10 % commission. */
export const saleFacts = (
  orderId: string,
  saleCents: number,
  options: { readonly paymentModel?: PaymentModel; readonly commissionBps?: number } = {}
): SaleFacts => ({
  orderId,
  paymentModel: options.paymentModel ?? "referral",
  saleCents,
  commissionBps: options.commissionBps ?? 1000
})

/** Any sale: any payment model, amount and rate. */
export const anySale: fc.Arbitrary<SaleFacts> = fc.record({
  orderId: fc.string({ minLength: 1, maxLength: 8 }),
  paymentModel: fc.constantFrom(...PAYMENT_MODELS),
  saleCents: cents,
  commissionBps: bps
})

/** What a payout would take now: the credit balance of `commission_payable`. */
export const payableOf = (postings: Iterable<Posting>): number => -balancesOf(postings).commission_payable

/** A payout of `amount` as the ledger posts it: started, then paid or failed. */
export const payoutPostings = (id: string, amount: number, outcome: "paid" | "failed"): ReadonlyArray<Posting> => [
  payoutStarted(id, amount),
  outcome === "paid" ? payoutPaid(id, amount) : payoutFailed(id, amount)
]
