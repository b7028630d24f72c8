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
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { payoutFailed, payoutPaid, payoutStarted } from "../../domain/Ledger.js"
import { AppConfig } from "../../platform/Config.js"
import { makeId } from "../../platform/Ids.js"
import { lockKey, runExclusive } from "../../platform/Singleton.js"
import type { PartnerEnvironment } from "../Auth.js"
import { Books } from "./Books.js"
import { type PayoutOutcome, PayoutProvider, SandboxPayouts } from "./PayoutProvider.js"
import type { PayoutRow } from "./Repo.js"

const PAYOUT_LOCK_CLASS = 6012

const sourceOf = (models: ReadonlyArray<string>): PayoutRow["source"] => {
  const kinds = [...new Set(models.map((m) => (m === "hosted_checkout" ? "checkout" : m)))]
  return kinds.length === 1 && (kinds[0] === "checkout" || kinds[0] === "referral" || kinds[0] === "brokerage") ? kinds[0] : "mixed"
}

export interface PayoutRunResult {
  readonly status: "completed" | "skipped"
  readonly payouts: ReadonlyArray<{ id: string; partner_id: string; environment: PartnerEnvironment; amount_cents: number; status: string }>
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const books = yield* Books
  const provider = yield* PayoutProvider
  const config = yield* AppConfig

  const scopeOf = (p: PayoutRow) => ({ partnerId: p.partner_id, environment: p.environment, currency: p.currency, payoutId: p.id })

  /**
   * Statements become `paid` (src/domain/Ledger.ts `paidStatements`): oldest first, while the paid
   * payouts of the partner, environment and currency cover the payable commission of the
   * statement and of every earlier one. In the transaction that marks the payout paid.
   */
  const markPaidStatements = (p: PayoutRow) =>
    sql`
      update settlement_statements s set status = 'paid'
      from (select id, sum(commission_payable_cents) over (order by id) as cumulative from settlement_statements
            where partner_id = ${p.partner_id} and environment = ${p.environment} and currency = ${p.currency}) c
      where s.id = c.id and s.status = 'closed' and s.commission_payable_cents > 0
        and c.cumulative <= (select coalesce(sum(amount_cents), 0) from partner_payouts
                             where partner_id = ${p.partner_id} and environment = ${p.environment} and currency = ${p.currency} and status = 'paid')`

  /** Sends a pending payout and records the outcome (paid / failed; pending stays for the next run). */
  const send = (p: PayoutRow) =>
    Effect.gen(function*() {
      const [partner] = yield* sql<{ payout_account: string | null }>`select payout_account from partners where id = ${p.partner_id}`
      const via = p.environment === "sandbox" ? SandboxPayouts : provider
      const outcome: PayoutOutcome = yield* via.pay({
        payoutId: p.id,
        partnerId: p.partner_id,
        amountCents: Number(p.amount_cents),
        currency: p.currency,
        destination: partner?.payout_account ?? null
      })
      if (outcome.status === "pending") {
        yield* Effect.logWarning("payout not confirmed; retried next run").pipe(Effect.annotateLogs({ payout: p.id, reason: outcome.reason }))
        return "pending" as const
      }
      return yield* sql.withTransaction(Effect.gen(function*() {
        const [row] = yield* sql<{ status: string }>`select status from partner_payouts where id = ${p.id} for update`
        if (row?.status !== "pending") return row?.status ?? "pending"
        if (outcome.status === "paid") {
          yield* sql`update partner_payouts set status = 'paid', paid_at = now(), provider_ref = ${outcome.ref} where id = ${p.id}`
          yield* books.post(scopeOf(p), payoutPaid(p.id, Number(p.amount_cents)))
          yield* markPaidStatements(p)
        } else {
          yield* sql`update partner_payouts set status = 'failed', failure = ${outcome.reason} where id = ${p.id}`
          yield* books.post(scopeOf(p), payoutFailed(p.id, Number(p.amount_cents)))
        }
        return outcome.status
      }))
    })

  /** Writes a pending payout of the whole payable balance, if it reaches the minimum. */
  const start = (g: { partner_id: string; environment: PartnerEnvironment; currency: string }) =>
    sql.withTransaction(Effect.gen(function*() {
      yield* sql`select pg_advisory_xact_lock(${PAYOUT_LOCK_CLASS}, ${lockKey(`${g.partner_id}:${g.environment}`)})`
      const balances = yield* books.balances(g.partner_id, g.environment, g.currency)
      const payable = -balances.commission_payable
      if (payable < config.ledger.payoutMinimumCents) return Option.none<PayoutRow>()
      const [last] = yield* sql<{ created_at: Date | null }>`
        select max(created_at) as created_at from partner_payouts
        where partner_id = ${g.partner_id} and environment = ${g.environment} and status <> 'failed'`
      const models = yield* sql<{ payment_model: string }>`
        select distinct payment_model from partner_orders
        where partner_id = ${g.partner_id} and environment = ${g.environment} and status = 'SETTLED' and payment_model <> 'partner_collected'
          ${last?.created_at ? sql`and settled_at > ${last.created_at}` : sql``}`
      const id = makeId("po")
      const [row] = yield* sql<PayoutRow>`
        insert into partner_payouts (id, partner_id, environment, amount_cents, currency, status, method, source)
        values (${id}, ${g.partner_id}, ${g.environment}, ${payable}, ${g.currency}, 'pending',
                ${g.environment === "sandbox" ? SandboxPayouts.method : provider.method}, ${sourceOf(models.map((m) => m.payment_model))})
        returning *`
      yield* books.post({ partnerId: g.partner_id, environment: g.environment, currency: g.currency, payoutId: id }, payoutStarted(id, payable))
      return Option.some(row!)
    }))

  const runUnlocked = Effect.gen(function*() {
    const out: Array<PayoutRunResult["payouts"][number]> = []
    const report = (p: PayoutRow, status: string) =>
      out.push({ id: p.id, partner_id: p.partner_id, environment: p.environment, amount_cents: Number(p.amount_cents), status })
    // First, payouts an earlier run left unconfirmed: the same idempotency key again.
    for (const p of yield* sql<PayoutRow>`select * from partner_payouts where status = 'pending' order by id`) report(p, yield* send(p))
    const groups = yield* sql<{ partner_id: string; environment: PartnerEnvironment; currency: string }>`
      select partner_id, environment, currency from ledger_entries where account = 'commission_payable'
      group by partner_id, environment, currency having -sum(amount_cents) >= ${config.ledger.payoutMinimumCents}
      order by partner_id, environment, currency`
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

  const setAccount = (partnerId: string, account: string) =>
    sql<{ id: string }>`update partners set payout_account = ${account} where id = ${partnerId} returning id`.pipe(
      Effect.map((rows) => rows.length === 1),
      Effect.orDie
    )

  return { run, setAccount }
})

export class Payouts extends Context.Tag("app/Payouts")<Payouts, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Payouts, make).pipe(Layer.provide(Books.Live))
}
