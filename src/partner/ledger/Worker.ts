/**
 * The scheduled settlement and payout runs: singletons across replicas (`schedule` holds an
 * advisory lock and records each run in `schedules`), every SETTLEMENT_INTERVAL and
 * PAYOUT_INTERVAL (0 disables either).
 */
import { Duration, Effect, Layer } from "effect"
import { schedule } from "../../platform/jobs/Singleton.js"
import { Payouts } from "./Payouts.js"
import { LedgerConfig } from "./Settings.js"
import { Settlement } from "./Settlement.js"

export const LedgerWorkersLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const ledgerSettings = yield* LedgerConfig
    const settlement = yield* Settlement
    const payouts = yield* Payouts
    if (Duration.toMillis(ledgerSettings.settlementInterval) > 0) {
      const job = settlement.run({ trigger: "schedule" }).pipe(
        Effect.tap((r) =>
          Effect.logInfo("settlement run").pipe(
            Effect.annotateLogs({ run: r.run_id, settled: r.orders_settled, statements: r.statements.length })
          )
        )
      )
      yield* Effect.forkScoped(schedule("settlement", ledgerSettings.settlementInterval, job))
    }
    if (Duration.toMillis(ledgerSettings.payoutInterval) > 0) {
      const job = payouts.run.pipe(
        Effect.tap((r) => Effect.logInfo("payout run").pipe(Effect.annotateLogs({ payouts: r.payouts.length })))
      )
      yield* Effect.forkScoped(schedule("payouts", ledgerSettings.payoutInterval, job))
    }
  })
)
