/**
 * The payout run: pays each partner's payable commission (service-collected sales, settled) when
 * it reaches PAYOUT_MINIMUM_CENTS, through the PayoutProvider (live money) or the sandbox provider
 * (sandbox money: never leaves the service).
 *
 * Contract: one run at a time (advisory lock). A payout is first written `pending` with its
 * `payout_started` posting (payable → in flight) in one transaction, then sent with the payout id
 * as the provider's idempotency key, then marked `paid` (in flight → paid out) or `failed` (the
 * amount returns to payable). A payout left `pending` (crash, provider unreachable) is re-sent
 * with the same key on the next run, so it is never paid twice.
 */
import { Effect, Option } from "effect"
import { payoutFailed, payoutPaid, payoutStarted } from "../../domain/Ledger.js"
import { makeId } from "../../platform/Ids.js"
import { lockKey, runExclusive } from "../../platform/jobs/Singleton.js"
import type { PartnerEnvironment } from "../Auth.js"
import { Credentials } from "../Credentials.js"
import { Books } from "./Books.js"
import { type PayoutOutcome, PayoutProvider, SandboxPayouts } from "./PayoutProvider.js"
import { type Group, MoneyRepo, type PayoutRow } from "./Repo.js"
import { LedgerConfig } from "./Settings.js"

const PAYOUT_LOCK_CLASS = 6012

/** The note on a payout waiting for its partner's payout account (`npm run -s cli -- payouts set-account`). */
export const NEEDS_PAYOUT_ACCOUNT = "needs_payout_account"

const sourceOf = (models: ReadonlyArray<string>): PayoutRow["source"] => {
  const kinds = [...new Set(models.map((m) => (m === "hosted_checkout" ? "checkout" : m)))]
  return kinds.length === 1 && (kinds[0] === "checkout" || kinds[0] === "referral" || kinds[0] === "brokerage")
    ? kinds[0]
    : "mixed"
}

export interface PayoutRunResult {
  readonly status: "completed" | "skipped"
  readonly payouts: ReadonlyArray<
    {
      id: string
      partner_id: string
      environment: PartnerEnvironment
      amount_cents: number
      status: PayoutRow["status"]
    }
  >
}

/** A payout with its partner's name, as the operators' history shows it. */
export interface PayoutHistoryRow extends PayoutRow {
  readonly partner_name: string | null
}

const make = Effect.gen(function*() {
  const money = yield* MoneyRepo
  const credentials = yield* Credentials
  const books = yield* Books
  const provider = yield* PayoutProvider
  const ledgerSettings = yield* LedgerConfig

  const scopeOf = (p: PayoutRow) => ({
    partnerId: p.partner_id,
    environment: p.environment,
    currency: p.currency,
    payoutId: p.id
  })

  /** Sends a pending payout and records the outcome (paid / failed; pending stays for the next run). */
  const send = (p: PayoutRow) =>
    Effect.gen(function*() {
      const partner = yield* credentials.payoutAccount(p.partner_id)
      const via = p.environment === "sandbox" ? SandboxPayouts : provider
      const destination = Option.match(partner, { onNone: () => null, onSome: (r) => r.payout_account })
      // A provider that pays an account cannot pay a partner without one: the payout waits, pending
      // (one row, its amount in flight), until the operator records the account; it is not failed
      // and written again on every run.
      if (via !== SandboxPayouts && destination === null) {
        yield* money.notePayoutWaiting(p.id, NEEDS_PAYOUT_ACCOUNT)
        yield* Effect.logWarning("payout waits for the partner's payout account").pipe(
          Effect.annotateLogs({ payout: p.id, partner_id: p.partner_id })
        )
        return "pending" as const
      }
      const outcome: PayoutOutcome = yield* via.pay({
        payoutId: p.id,
        partnerId: p.partner_id,
        amountCents: p.amount_cents,
        currency: p.currency,
        destination
      })
      if (outcome.status === "pending") {
        yield* Effect.logWarning("payout not confirmed; retried next run").pipe(
          Effect.annotateLogs({ payout: p.id, reason: outcome.reason })
        )
        return "pending" as const
      }
      return yield* money.transaction(Effect.gen(function*() {
        // Serialised with the partner's receipts (Receipts.ts): both decide which statements are paid.
        yield* money.lockPartnerPayouts(PAYOUT_LOCK_CLASS, lockKey(`${p.partner_id}:${p.environment}`))
        const row = yield* money.payoutStatusForUpdate(p.id)
        if (Option.isNone(row)) return "pending" as const
        if (row.value.status !== "pending") return row.value.status
        if (outcome.status === "paid") {
          yield* money.markPayoutPaid(p.id, outcome.ref)
          yield* books.post(scopeOf(p), payoutPaid(p.id, p.amount_cents))
          // In the transaction that marks the payout paid.
          yield* money.markPaidStatements(p)
        } else {
          yield* money.markPayoutFailed(p.id, outcome.reason)
          yield* books.post(scopeOf(p), payoutFailed(p.id, p.amount_cents))
        }
        return outcome.status
      }))
    })

  /** Writes a pending payout of the whole payable balance, if it reaches the minimum. */
  const start = (g: Group) =>
    money.transaction(Effect.gen(function*() {
      yield* money.lockPartnerPayouts(PAYOUT_LOCK_CLASS, lockKey(`${g.partner_id}:${g.environment}`))
      const balances = yield* books.balances(g.partner_id, g.environment, g.currency)
      const payable = -balances.commission_payable
      if (payable < ledgerSettings.payoutMinimumCents) return Option.none<PayoutRow>()
      const last = yield* money.lastPayoutAt(g)
      const models = yield* money.paymentModelsSettledAfter(g, last)
      const id = makeId("po")
      const row = yield* money.insertPayout({
        id,
        partner_id: g.partner_id,
        environment: g.environment,
        amount_cents: payable,
        currency: g.currency,
        method: g.environment === "sandbox" ? SandboxPayouts.method : provider.method,
        source: sourceOf(models)
      })
      yield* books.post(
        { partnerId: g.partner_id, environment: g.environment, currency: g.currency, payoutId: id },
        payoutStarted(id, payable)
      )
      return Option.some(row)
    }))

  const runUnlocked = Effect.gen(function*() {
    const out: Array<PayoutRunResult["payouts"][number]> = []
    const report = (p: PayoutRow, status: PayoutRow["status"]) =>
      out.push({ id: p.id, partner_id: p.partner_id, environment: p.environment, amount_cents: p.amount_cents, status })
    // First, payouts an earlier run left unconfirmed: the same idempotency key again.
    for (const p of yield* money.pendingPayouts) report(p, yield* send(p))
    const groups = yield* money.payableGroups(ledgerSettings.payoutMinimumCents)
    for (const g of groups) {
      const p = yield* start(g)
      if (Option.isSome(p)) report(p.value, yield* send(p.value))
    }
    return { status: "completed", payouts: out } satisfies PayoutRunResult
  })

  const run = runExclusive("payout-run", runUnlocked).pipe(
    Effect.map(Option.getOrElse((): PayoutRunResult => ({ status: "skipped", payouts: [] }))),
    Effect.orDie
  )

  /**
   * Every partner's payouts, newest first (the operator console's history): a page after
   * `beforeId`, each with its partner's name (null for a partner no longer there), and whether
   * more follow. The names are asked of the partners' service, once per partner on the page.
   */
  const history = (beforeId: string | null, limit: number) =>
    Effect.gen(function*() {
      const rows = yield* money.payouts(null, null, beforeId, limit + 1)
      const page = rows.slice(0, limit)
      const names = new Map(
        yield* Effect.forEach(
          [...new Set(page.map((p) => p.partner_id))],
          (id) =>
            Effect.map(
              credentials.showPartner(id),
              (p) => [id, Option.match(p, { onNone: () => null, onSome: (r) => r.name })] as const
            ),
          { concurrency: 4 }
        )
      )
      const payouts: ReadonlyArray<PayoutHistoryRow> = page.map((p) => ({
        ...p,
        partner_name: names.get(p.partner_id) ?? null
      }))
      return { payouts, hasMore: rows.length > limit }
    })

  return {
    run,
    history,
    /** The partner's account at the payout provider; false when there is no such partner. */
    setAccount: credentials.setPayoutAccount
  }
})

export class Payouts extends Effect.Service<Payouts>()("app/Payouts", {
  effect: make,
  dependencies: [MoneyRepo.Default, Books.Default, Credentials.Live]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = Payouts.Default
}
