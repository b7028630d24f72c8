/**
 * Duration settings (src/platform/DurationSetting.ts), read through the config layer of the
 * capabilities that document "0 disables" (issue 30 item 5): `0` is accepted, short units too,
 * and any other bad value is refused naming the variable and the accepted forms.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Config, ConfigProvider, Duration, Effect, Either } from "effect"
import { checkoutConfig } from "../../src/checkout/Settings.js"
import { ledgerConfig } from "../../src/partner/ledger/Settings.js"
import { appConfig } from "../../src/platform/Config.js"

const under = <A>(config: Config.Config<A>, env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("duration settings", () => {
  it.effect("0 is accepted where the docs say it disables a schedule", () =>
    Effect.gen(function*() {
      const ledger = yield* under(ledgerConfig, { SETTLEMENT_INTERVAL: "0", PAYOUT_INTERVAL: "0" })
      expect(Either.isRight(ledger), String(Either.isLeft(ledger) && ledger.left)).toBe(true)
      if (Either.isRight(ledger)) {
        expect(Duration.toMillis(ledger.right.settlementInterval)).toBe(0)
        expect(Duration.toMillis(ledger.right.payoutInterval)).toBe(0)
      }
      const checkout = yield* under(checkoutConfig, { CHECKOUT_RECONCILE_INTERVAL: "0" })
      expect(Either.isRight(checkout), String(Either.isLeft(checkout) && checkout.left)).toBe(true)
      if (Either.isRight(checkout)) expect(Duration.toMillis(checkout.right.reconcileInterval)).toBe(0)
    }))

  it.effect("the long forms still parse, and short units are accepted", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<[string, number]> = [
        ["5 minutes", 300_000],
        ["1 minute", 60_000],
        ["24 hours", 86_400_000],
        ["30 s", 30_000],
        ["30s", 30_000],
        ["250 ms", 250],
        ["1.5 h", 5_400_000],
        ["2 min", 120_000],
        ["7 days", 604_800_000],
        ["0 seconds", 0]
      ]
      for (const [value, ms] of cases) {
        const r = yield* under(ledgerConfig, { SETTLEMENT_INTERVAL: value })
        expect(Either.isRight(r), `${value}: ${String(Either.isLeft(r) && r.left)}`).toBe(true)
        if (Either.isRight(r)) expect(Duration.toMillis(r.right.settlementInterval), value).toBe(ms)
      }
    }))

  it.effect("any other value is refused naming the variable and the accepted forms", () =>
    Effect.gen(function*() {
      for (const value of ["soon", "30", "-5 minutes", "5 fortnights", ""]) {
        const r = yield* under(ledgerConfig, { PAYOUT_INTERVAL: value })
        expect(Either.isLeft(r), value).toBe(true)
        if (Either.isLeft(r)) {
          const text = String(r.left)
          expect(text).toContain("PAYOUT_INTERVAL")
          expect(text).toContain("5 minutes")
          expect(text).toContain("30 s")
          expect(text).toContain("0")
        }
      }
      const platform = yield* under(appConfig, { REQUEST_TIMEOUT: "a while" })
      expect(Either.isLeft(platform)).toBe(true)
      if (Either.isLeft(platform)) expect(String(platform.left)).toContain("REQUEST_TIMEOUT")
    }))
})
