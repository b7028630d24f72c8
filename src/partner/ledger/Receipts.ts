/**
 * Receipts: an operator records that a partner paid (part of) what its statements say it owes
 * (`npm run -s cli -- ledger receipt`, `POST /api/admin/ledger/receipts`).
 *
 * Contract: one transaction, serialised per partner and environment (an advisory lock), writes
 * the receipt row, its balanced posting (`partner_receipts` debit, `partner_receivable_settled`
 * credit: the receivable goes down) and marks `paid` every statement the receipts now cover,
 * oldest amount owed first (src/domain/Ledger.ts `paidStatements`). A receipt can never exceed
 * what the statements still say is owed (409), and a reference names one receipt: the same
 * reference and amount again answers the first receipt (idempotent), another amount is a 409.
 */
import { Effect, Option } from "effect"
import { receipt } from "../../domain/Ledger.js"
import { makeId } from "../../platform/Ids.js"
import { lockKey } from "../../platform/jobs/Singleton.js"
import type { PartnerEnvironment } from "../Auth.js"
import { Credentials } from "../Credentials.js"
import { Books } from "./Books.js"
import { PartnerNotFound, ReceiptExceedsOwed, ReceiptReferenceUsed } from "./Errors.js"
import { MoneyRepo, type ReceiptRow } from "./Repo.js"

/**
 * The payout run's lock (Payouts.ts): a receipt and a payout of one partner never interleave, so
 * whichever commits last sees the other when it decides which statements are `paid`.
 */
const RECEIPT_LOCK_CLASS = 6012

export interface ReceiptInput {
  readonly partnerId: string
  readonly environment: PartnerEnvironment
  readonly amountCents: number
  readonly reference: string
}

export interface ReceiptResult extends ReceiptRow {
  /** Statements this receipt moved to `paid` (none on a replay). */
  readonly statements_paid: ReadonlyArray<string>
  /** What the partner's statements still say it owes after the receipt. */
  readonly owed_cents: number
  readonly replayed: boolean
}

const CURRENCY = "USD"

const make = Effect.gen(function*() {
  const money = yield* MoneyRepo
  const books = yield* Books
  const credentials = yield* Credentials

  const record = (input: ReceiptInput) =>
    Effect.gen(function*() {
      if (Option.isNone(yield* credentials.showPartner(input.partnerId))) {
        return yield* PartnerNotFound.of(input.partnerId)
      }
      return yield* money.transaction(Effect.gen(function*() {
        yield* money.lockPartnerPayouts(RECEIPT_LOCK_CLASS, lockKey(`${input.partnerId}:${input.environment}`))
        const owedNow = (yield* books.balances(input.partnerId, input.environment, CURRENCY))
          .partner_receivable_settled
        const earlier = yield* money.receiptByReference(input.partnerId, input.environment, input.reference)
        if (Option.isSome(earlier)) {
          if (earlier.value.amount_cents !== input.amountCents) {
            return yield* new ReceiptReferenceUsed({
              message:
                `Reference ${input.reference} already names receipt ${earlier.value.id} of ${earlier.value.amount_cents} cents`,
              details: { receipt_id: earlier.value.id, amount_cents: earlier.value.amount_cents }
            })
          }
          return { ...earlier.value, statements_paid: [], owed_cents: owedNow, replayed: true } satisfies ReceiptResult
        }
        if (input.amountCents > owedNow) {
          return yield* new ReceiptExceedsOwed({
            message: `The partner's statements say it owes ${owedNow} cents; a receipt of ${input.amountCents} is more`,
            details: { owed_cents: owedNow }
          })
        }
        const row = yield* money.insertReceipt({
          id: makeId("rct"),
          partner_id: input.partnerId,
          environment: input.environment,
          currency: CURRENCY,
          amount_cents: input.amountCents,
          reference: input.reference
        })
        yield* books.post(
          { partnerId: input.partnerId, environment: input.environment, currency: CURRENCY },
          receipt(row.id, row.amount_cents)
        )
        const paid = yield* money.markPaidStatements({
          partner_id: input.partnerId,
          environment: input.environment,
          currency: CURRENCY
        })
        return {
          ...row,
          statements_paid: paid,
          owed_cents: owedNow - input.amountCents,
          replayed: false
        } satisfies ReceiptResult
      }))
    })

  return { record }
})

export class Receipts extends Effect.Service<Receipts>()("app/LedgerReceipts", {
  effect: make,
  dependencies: [MoneyRepo.Default, Books.Default, Credentials.Live]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = Receipts.Default
}
