/**
 * The settlement run: every TRANSFER_COMPLETED order whose completion is at least
 * SETTLEMENT_HOLD_DAYS before `asOf` becomes SETTLED and joins one statement per partner,
 * environment, currency and run.
 *
 * Contract (each a test in test/ledger/): one run at a time across replicas and CLI processes
 * (session advisory lock; a second caller is told `skipped`); each statement is written in ONE
 * transaction with its orders' status, timeline, `order.settled` events and ledger postings, so a
 * crash leaves whole statements or none; orders are claimed `for update skip locked` and the
 * status check is in the same UPDATE, so nothing is ever settled twice.
 */
import { Cause, Clock, Effect, Option } from "effect"
import { settled } from "../../domain/Ledger.js"
import { commissionOf } from "../../domain/Money.js"
import { makeId } from "../../platform/Ids.js"
import { runExclusive } from "../../platform/jobs/Singleton.js"
import { recordSettlementRun } from "../../platform/observability/Metrics.js"
import type { PartnerEnvironment } from "../Auth.js"
import { Books, orderScope, saleFacts } from "./Books.js"
import { type Group, MoneyRepo } from "./Repo.js"
import { LedgerConfig } from "./Settings.js"
import { type DueOrder, SettlementOrders } from "./SettlementOrders.js"

const DAY_MS = 86_400_000
/** Far enough in the future to settle an order regardless of the hold (sandbox advance). */
const NO_HOLD = new Date("9999-12-31T00:00:00.000Z")

export interface StatementSummary {
  readonly id: string
  readonly partner_id: string
  readonly environment: PartnerEnvironment
  readonly currency: string
  readonly orders_count: number
  readonly gross_sold_cents: number
  readonly amount_owed_cents: number
  readonly commission_payable_cents: number
}

export interface RunResult {
  readonly status: "completed" | "skipped"
  readonly run_id: string | null
  readonly as_of: Date
  readonly cutoff: Date
  readonly orders_settled: number
  readonly statements: ReadonlyArray<StatementSummary>
}

const make = Effect.gen(function*() {
  const money = yield* MoneyRepo
  const orderSide = yield* SettlementOrders
  const books = yield* Books
  const ledgerSettings = yield* LedgerConfig

  const lineOf = (o: DueOrder) => {
    const commission = commissionOf(o.sale_price_cents, o.commission_bps)
    const partnerCollects = o.payment_model === "partner_collected"
    return {
      order_id: o.id,
      domain: o.domain,
      payment_model: o.payment_model,
      sale_price_cents: o.sale_price_cents,
      commission_cents: commission,
      owed_cents: partnerCollects ? o.sale_price_cents - commission : 0
    }
  }

  /** One statement: claim the due orders of the group and write everything, in one transaction. */
  const settleGroup = (
    runId: string,
    actor: string,
    g: Group,
    cutoff: Date,
    onlyId?: string
  ) =>
    money.transaction(
      Effect.gen(function*() {
        const orders = yield* orderSide.claimDue({ ...g, cutoff, onlyId })
        if (orders.length === 0) return Option.none<StatementSummary>()
        const now = new Date(yield* Clock.currentTimeMillis)
        const id = makeId("stl")
        const lines = orders.map(lineOf)
        const pc = lines.filter((l) => l.payment_model === "partner_collected")
        const gross = lines.reduce((a, l) => a + l.sale_price_cents, 0)
        const retained = pc.reduce((a, l) => a + l.commission_cents, 0)
        const owed = pc.reduce((a, l) => a + l.owed_cents, 0)
        const payable = lines.filter((l) => l.payment_model !== "partner_collected").reduce(
          (a, l) => a + l.commission_cents,
          0
        )
        const firstCreated = orders.reduce((m, o) => Math.min(m, o.created_at.getTime()), now.getTime())
        const prev = yield* money.previousStatement(g)
        // The period runs from the previous statement's end (the first: the oldest sale on it) to the cutoff.
        const periodStart = new Date(Math.min(prev.end?.getTime() ?? firstCreated, firstCreated))
        const periodEnd = cutoff.getTime() > now.getTime() ? now : cutoff
        // Refunds recorded since the previous statement was written (each on exactly one statement).
        const refunds = yield* money.refundsBetween(g, prev.created, now)
        yield* money.insertStatement({
          id,
          run_id: runId,
          partner_id: g.partner_id,
          environment: g.environment,
          currency: g.currency,
          period_start: periodStart,
          period_end: periodEnd,
          orders_count: lines.length,
          gross_sold_cents: gross,
          commission_retained_cents: retained,
          amount_owed_cents: owed,
          commission_payable_cents: payable,
          refunds_cents: refunds
        })
        yield* money.insertLines(lines.map((l) => ({ ...l, statement_id: id })))
        yield* books.postMany(
          orders.map((o) => ({ scope: { ...orderScope(o), statementId: id }, posting: settled(saleFacts(o)) }))
        )
        yield* orderSide.recordSettled(g, orders, actor)
        return Option.some<StatementSummary>({
          id,
          partner_id: g.partner_id,
          environment: g.environment,
          currency: g.currency,
          orders_count: lines.length,
          gross_sold_cents: gross,
          amount_owed_cents: owed,
          commission_payable_cents: payable
        })
      })
    )

  const runUnlocked = (asOf: Date, trigger: string) =>
    Effect.gen(function*() {
      const cutoff = new Date(asOf.getTime() - ledgerSettings.settlementHoldDays * DAY_MS)
      const runId = makeId("str")
      yield* money.insertRun({ id: runId, trigger, as_of: asOf, cutoff })
      const groups = yield* orderSide.dueGroups(cutoff)
      const statements: Array<StatementSummary> = []
      for (const g of groups) {
        const s = yield* settleGroup(runId, `settlement:${runId}`, g, cutoff)
        if (Option.isSome(s)) statements.push(s.value)
      }
      const settledCount = statements.reduce((a, s) => a + s.orders_count, 0)
      yield* money.finishRun(runId, settledCount, statements.length)
      return {
        status: "completed",
        run_id: runId,
        as_of: asOf,
        cutoff,
        orders_settled: settledCount,
        statements
      } satisfies RunResult
    })

  /** A settlement run as of `asOf` (default now); `skipped` while another run holds the lock. */
  const run = (options: { readonly asOf?: Date | undefined; readonly trigger: string }) =>
    Effect.gen(function*() {
      const asOf = options.asOf ?? new Date(yield* Clock.currentTimeMillis)
      const result = yield* runExclusive("settlement-run", runUnlocked(asOf, options.trigger))
      return Option.getOrElse(result, (): RunResult => ({
        status: "skipped",
        run_id: null,
        as_of: asOf,
        cutoff: new Date(asOf.getTime() - ledgerSettings.settlementHoldDays * DAY_MS),
        orders_settled: 0,
        statements: []
      }))
    }).pipe(
      Effect.orDie,
      // settlement_runs_total{outcome} of GET /metrics
      Effect.onExit((exit) =>
        Effect.sync(() => {
          if (exit._tag === "Success") recordSettlementRun(exit.value.status === "skipped" ? "skipped" : "completed")
          else if (!Cause.isInterruptedOnly(exit.cause)) recordSettlementRun("failed")
        })
      )
    )

  /** Settles one TRANSFER_COMPLETED order now, ignoring the hold (sandbox advance): its own run and statement. */
  const settleOrder = (order: DueOrder, actor: string) =>
    Effect.gen(function*() {
      const runId = makeId("str")
      const now = new Date(yield* Clock.currentTimeMillis)
      yield* money.insertRun({ id: runId, trigger: actor, as_of: now, cutoff: now })
      const s = yield* settleGroup(
        runId,
        actor,
        { partner_id: order.partner_id, environment: order.environment, currency: order.currency },
        NO_HOLD,
        order.id
      )
      yield* money.finishRun(runId, Option.isSome(s) ? 1 : 0, Option.isSome(s) ? 1 : 0)
      return s
    }).pipe(Effect.orDie)

  return {
    run,
    settleOrder,
    /** Sandbox advance from TRANSFER_COMPLETED: the same settlement code, for that one order. */
    settleOrderById: (orderId: string, actor: string) =>
      Effect.flatMap(
        orderSide.find(orderId),
        (row) =>
          Option.match(row, {
            onNone: () => Effect.succeed(Option.none<StatementSummary>()),
            onSome: (o) => settleOrder(o, actor)
          })
      )
  }
})

/** Needs the orders slice's side of settlement (`SettlementOrders`), which src/partner/Layer.ts provides. */
export class Settlement extends Effect.Service<Settlement>()("app/Settlement", {
  effect: make,
  dependencies: [MoneyRepo.Default, Books.Default]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = Settlement.Default
}
