/**
 * The partner ledger's posting rules. Pure: which balanced entries each money event writes.
 *
 * Amounts are signed integer cents: positive = debit, negative = credit. A transaction is
 * balanced when its entries sum to zero; every rule below returns a balanced transaction and
 * `reverse` of a balanced transaction is balanced (a refund or correction never edits, it posts
 * the reversal). Every account belongs to one partner and environment (the caller's key), so
 * sandbox and live money never meet in one balance.
 *
 *   recorded, partner collects:  Dr partner_receivable (sale − c)  Dr commission_expense c   Cr sales_revenue sale
 *   recorded, service collects:  Dr buyer_payments sale            Cr sales_revenue sale
 *                                Dr commission_expense c           Cr commission_accrued c
 *   recorded, brokerage fee:     Dr brokerage_fee_receivable fee   Cr sales_revenue fee
 *                                Dr commission_expense c           Cr commission_accrued c
 *   receipt from a partner:      Dr partner_receipts amount        Cr partner_receivable_settled amount
 *   settled,  partner collects:  Dr partner_receivable_settled     Cr partner_receivable   (sale − c)
 *   settled,  service collects:  Dr commission_accrued             Cr commission_payable   c
 *   payout started:              Dr commission_payable             Cr payouts_in_flight    amount
 *   payout paid:                 Dr payouts_in_flight              Cr payouts_paid         amount
 *   payout failed / refund / cancellation: the reversal of what it undoes
 *   payment that bought nothing: Dr buyer_payments      Cr buyer_refunds_due  amount   (taken)
 *                                Dr buyer_refunds_due   Cr buyer_payments     amount   (refund sent)
 *
 * `buyer_payments` is the cash the payment provider took from buyers (hosted checkout, /buy,
 * referral sales), net of refunds: `ledger verify` reconciles it with the checkout's payment
 * records. A brokerage deal is paid between buyer and seller outside the service, so a won case
 * books only the fee the service is owed (`brokerage_fee_receivable`), never cash.
 */
import { commissionOf, sumCents } from "./Money.js"

export const ACCOUNTS = [
  "partner_receivable",
  "partner_receivable_settled",
  "sales_revenue",
  "commission_expense",
  "buyer_payments",
  "brokerage_fee_receivable",
  "partner_receipts",
  "commission_accrued",
  "commission_payable",
  "payouts_in_flight",
  "payouts_paid",
  "buyer_refunds_due"
] as const
export type Account = typeof ACCOUNTS[number]

export const PAYMENT_MODELS = ["partner_collected", "hosted_checkout", "referral", "brokerage"] as const
export type PaymentModel = typeof PAYMENT_MODELS[number]

/** The service is merchant of record for every model but partner_collected. */
export const serviceCollects = (m: PaymentModel): boolean => m !== "partner_collected"

export interface Entry {
  readonly account: Account
  readonly amount: number
}

export interface Posting {
  /** Natural key: the same event always produces the same key (idempotency). */
  readonly key: string
  readonly kind:
    | "recorded"
    | "reversed"
    | "settled"
    | "payout_started"
    | "payout_paid"
    | "payout_failed"
    | "receipt"
    | "rebooked"
  readonly entries: ReadonlyArray<Entry>
}

export const isBalanced = (entries: ReadonlyArray<Entry>): boolean =>
  entries.every((e) => Number.isSafeInteger(e.amount)) && sumCents(entries.map((e) => e.amount)) === 0

const pair = (debit: Account, credit: Account, amount: number): ReadonlyArray<Entry> =>
  amount === 0 ? [] : [{ account: debit, amount }, { account: credit, amount: -amount }]

export interface SaleFacts {
  readonly orderId: string
  readonly paymentModel: PaymentModel
  readonly saleCents: number
  readonly commissionBps: number
}

export const saleCommission = (s: SaleFacts): number => commissionOf(s.saleCents, s.commissionBps)

/** The sale as recorded (order.recorded, or a paid checkout). */
export const recorded = (s: SaleFacts): Posting => {
  const c = saleCommission(s)
  const entries: ReadonlyArray<Entry> = serviceCollects(s.paymentModel)
    ? [
      ...pair(
        s.paymentModel === "brokerage" ? "brokerage_fee_receivable" : "buyer_payments",
        "sales_revenue",
        s.saleCents
      ),
      ...pair("commission_expense", "commission_accrued", c)
    ]
    : [
      ...(s.saleCents - c === 0 ? [] : [{ account: "partner_receivable" as const, amount: s.saleCents - c }]),
      ...(c === 0 ? [] : [{ account: "commission_expense" as const, amount: c }]),
      ...(s.saleCents === 0 ? [] : [{ account: "sales_revenue" as const, amount: -s.saleCents }])
    ]
  return { key: `order:${s.orderId}:recorded`, kind: "recorded", entries }
}

/** The reversal of a posting, under its own key (a refund or a cancellation of the sale). */
export const reverse = (p: Posting, key: string): Posting => ({
  key,
  kind: "reversed",
  entries: p.entries.map((e) => ({ account: e.account, amount: e.amount === 0 ? 0 : -e.amount }))
})

/** Refund or cancellation before TRANSFER_COMPLETED: the recorded sale is undone. */
export const refunded = (s: SaleFacts): Posting => reverse(recorded(s), `order:${s.orderId}:reversed`)

/** Settlement of one order: owed amount onto the statement, or commission becomes payable. */
export const settled = (s: SaleFacts): Posting => {
  const c = saleCommission(s)
  return {
    key: `order:${s.orderId}:settled`,
    kind: "settled",
    entries: serviceCollects(s.paymentModel)
      ? pair("commission_accrued", "commission_payable", c)
      : pair("partner_receivable_settled", "partner_receivable", s.saleCents - c)
  }
}

export const payoutStarted = (payoutId: string, amount: number): Posting => ({
  key: `payout:${payoutId}:started`,
  kind: "payout_started",
  entries: pair("commission_payable", "payouts_in_flight", amount)
})

export const payoutPaid = (payoutId: string, amount: number): Posting => ({
  key: `payout:${payoutId}:paid`,
  kind: "payout_paid",
  entries: pair("payouts_in_flight", "payouts_paid", amount)
})

/** A failed payout returns the amount to payable. */
export const payoutFailed = (payoutId: string, amount: number): Posting => ({
  ...reverse(payoutStarted(payoutId, amount), `payout:${payoutId}:failed`),
  kind: "payout_failed"
})

/**
 * A partner paid (part of) what its statements say it owes: the settled receivable goes down,
 * the money is in the service's bank (`partner_receipts`).
 */
export const receipt = (receiptId: string, amount: number): Posting => ({
  key: `receipt:${receiptId}`,
  kind: "receipt",
  entries: pair("partner_receipts", "partner_receivable_settled", amount)
})

export type Balances = Readonly<Record<Account, number>>

export const emptyBalances = (): Record<Account, number> =>
  Object.fromEntries(ACCOUNTS.map((a) => [a, 0])) as Record<Account, number>

/** Balance of every account after the postings (debit-positive). */
export const balancesOf = (postings: Iterable<Posting>): Balances => {
  const b = emptyBalances()
  for (const p of postings) for (const e of p.entries) b[e.account] += e.amount
  return b
}

/**
 * Which statements are `paid`: everything a statement made flow has flowed. Its payable
 * commission (service-collected lines) is paid by payouts, its amount owed (partner-collected
 * lines) by the partner's receipts; each is matched to statements oldest first (ids are
 * time-sortable) within one partner, environment and currency:
 * - payouts pay a partner's whole payable balance, which the statements made payable in order
 *   (a failed payout returns its amount to payable and a later payout pays it);
 * - receipts (`ledger receipt`) pay the oldest amount owed first.
 * A statement is `paid` when it has something to pay either way and each side it has is covered:
 * the paid payouts add up to at least the payable commission of it and every earlier statement,
 * and the receipts to at least the amount owed of it and every earlier statement. A statement
 * with nothing to pay either way (only refunds, say) stays `closed`.
 */
export const paidStatements = (
  statements: ReadonlyArray<{ readonly id: string; readonly payableCents: number; readonly owedCents?: number }>,
  paidOutCents: number,
  receivedCents = 0
): ReadonlySet<string> => {
  const paid = new Set<string>()
  let payable = 0
  let owed = 0
  for (const s of [...statements].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const o = s.owedCents ?? 0
    payable += s.payableCents
    owed += o
    if (s.payableCents <= 0 && o <= 0) continue
    if ((s.payableCents <= 0 || payable <= paidOutCents) && (o <= 0 || owed <= receivedCents)) paid.add(s.id)
  }
  return paid
}

/**
 * Carts (bulk renew/restore paid through the hosted checkout; the service sells, under the house
 * partner): the buyer's payment is cash in and revenue; each item refunded after payment
 * (its registrar call failed) reverses its own amount.
 *
 *   cart paid:          Dr buyer_payments total   Cr sales_revenue total
 *   cart item refunded: Dr sales_revenue amount   Cr buyer_payments amount
 */
export const cartPaid = (cartId: string, totalCents: number): Posting => ({
  key: `cart:${cartId}:paid`,
  kind: "recorded",
  entries: pair("buyer_payments", "sales_revenue", totalCents)
})

export const cartItemRefunded = (cartId: string, itemId: string, amountCents: number): Posting => ({
  key: `cart:${cartId}:item:${itemId}:refunded`,
  kind: "reversed",
  entries: pair("sales_revenue", "buyer_payments", amountCents)
})

/**
 * A hosted-checkout payment that bought nothing (the domain was sold to someone else while the
 * buyer paid): the cash came in and is owed back. Booked when the session is refused; the
 * reversal when the provider has sent the refund (retried until it has).
 */
export const paymentTaken = (sessionId: string, amountCents: number): Posting => ({
  key: `payment:${sessionId}:taken`,
  kind: "recorded",
  entries: pair("buyer_payments", "buyer_refunds_due", amountCents)
})

export const paymentReturned = (sessionId: string, amountCents: number): Posting =>
  reverse(paymentTaken(sessionId, amountCents), `payment:${sessionId}:returned`)
