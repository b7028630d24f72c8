/**
 * Brokerage settings, read with `Config` by this capability (docs/brokerage.md).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | BROKERAGE_FEE_BPS | 1500 | the service's brokerage fee, in basis points of the deal price (15 %) |
 * | BROKERAGE_PARTNER_SHARE_BPS | 2000 | the partner's commission, in basis points of the service's fee (20 % of the fee) |
 * | BROKERAGE_SITE_TIMEOUT | 4 seconds | time limit of each live-site fetch (HTTPS, then HTTP) |
 * | BROKERAGE_ELIGIBILITY_TTL | 60 seconds | how long a live-site finding per domain is reused (0: never) |
 */
import { Config, Context, Duration, Layer } from "effect"
import { durationSetting } from "../../platform/DurationSetting.js"

export interface BrokerageSettings {
  readonly feeBps: number
  readonly partnerShareBps: number
  readonly siteTimeout: Duration.Duration
  readonly eligibilityTtl: Duration.Duration
}

const bps = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be 0..10000 (basis points)`, validation: (n) => n >= 0 && n <= 10_000 }),
    Config.withDefault(fallback)
  )

export const brokerageConfig: Config.Config<BrokerageSettings> = Config.all({
  feeBps: bps("BROKERAGE_FEE_BPS", 1500),
  partnerShareBps: bps("BROKERAGE_PARTNER_SHARE_BPS", 2000),
  siteTimeout: durationSetting("BROKERAGE_SITE_TIMEOUT", Duration.seconds(4)),
  eligibilityTtl: durationSetting("BROKERAGE_ELIGIBILITY_TTL", Duration.seconds(60))
})

export class BrokerageConfig extends Context.Tag("partner/BrokerageConfig")<BrokerageConfig, BrokerageSettings>() {
  static readonly Live = Layer.effect(BrokerageConfig, brokerageConfig)
}
