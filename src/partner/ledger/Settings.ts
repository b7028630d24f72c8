/**
 * Ledger, settlement and payout settings, read with `Config` by this capability.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | SETTLEMENT_INTERVAL | 24 hours | how often the settlement run starts (one replica at a time; 0 disables) |
 * | SETTLEMENT_HOLD_DAYS | 7 | an order settles once its TRANSFER_COMPLETED is at least this old |
 * | PAYOUT_INTERVAL | 7 days | how often the payout run starts (0 disables) |
 * | PAYOUT_MINIMUM_CENTS | 5000 | payable commission below this waits for the next run |
 * | PAYOUT_PROVIDER | sandbox | `sandbox` (pays at once, nothing leaves) or `stripe` (Stripe Connect transfers) |
 * | STRIPE_API_KEY | — | secret key of the platform account (required for `stripe`) |
 * | STRIPE_API_BASE | https://api.stripe.com | the Stripe REST origin (tests point it at a loopback fake) |
 */
import { Config, Context, Duration, Layer, Option, type Redacted } from "effect"
import { isAmountCents, MAX_AMOUNT_CENTS } from "../../domain/Money.js"
import { realInProduction } from "../../platform/Deployment.js"
import { durationSetting } from "../../platform/DurationSetting.js"

export interface LedgerSettings {
  readonly settlementInterval: Duration.Duration
  readonly settlementHoldDays: number
  readonly payoutInterval: Duration.Duration
  readonly payoutMinimumCents: number
  readonly payoutProvider: "sandbox" | "stripe"
  readonly stripeApiKey: Option.Option<Redacted.Redacted>
  readonly stripeApiBase: string
}

export const ledgerConfig: Config.Config<LedgerSettings> = Config.all({
  settlementInterval: durationSetting("SETTLEMENT_INTERVAL", Duration.hours(24)),
  settlementHoldDays: Config.integer("SETTLEMENT_HOLD_DAYS").pipe(
    Config.validate({ message: "SETTLEMENT_HOLD_DAYS must be 0 or more", validation: (n) => n >= 0 }),
    Config.withDefault(7)
  ),
  payoutInterval: durationSetting("PAYOUT_INTERVAL", Duration.days(7)),
  payoutMinimumCents: Config.integer("PAYOUT_MINIMUM_CENTS").pipe(
    Config.validate({
      message: `PAYOUT_MINIMUM_CENTS must be 1 to ${MAX_AMOUNT_CENTS}`,
      validation: (n) => n >= 1 && isAmountCents(n)
    }),
    Config.withDefault(5000)
  ),
  payoutProvider: realInProduction(
    "PAYOUT_PROVIDER",
    Config.literal("sandbox", "stripe")("PAYOUT_PROVIDER").pipe(Config.withDefault("sandbox" as const)),
    "sandbox",
    "pays nobody (commissions are marked paid and no money leaves)",
    "set PAYOUT_PROVIDER=stripe"
  ),
  stripeApiKey: Config.option(Config.redacted("STRIPE_API_KEY")),
  stripeApiBase: Config.string("STRIPE_API_BASE").pipe(Config.withDefault("https://api.stripe.com"))
})

export class LedgerConfig extends Context.Tag("partner/LedgerConfig")<LedgerConfig, LedgerSettings>() {
  static readonly Live = Layer.effect(LedgerConfig, ledgerConfig)
}
