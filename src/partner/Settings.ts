/**
 * Partner API settings, read with `Config` by this capability.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | REVIEW_THRESHOLD_CENTS | 2500000 | orders at or above this amount are held (MANUAL_REVIEW) |
 * | PARTNER_SKEW_SECONDS | 300 | accepted X-Service-Timestamp drift either side |
 * | WEBHOOK_RETRY_BASE | 5 seconds | first retry delay; the schedule keeps its proportions (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) |
 * | WEBHOOK_TIMEOUT | 5 seconds | a delivery not answered within this is a failed attempt |
 * | WEBHOOK_POLL_INTERVAL | 1 second | how often each replica looks for due deliveries |
 * | WEBHOOK_CONCURRENCY | 64 | delivery attempts in flight per replica to endpoints that answer (a quarter of it, at least 2, more for probes of endpoints that stopped answering) |
 * | WEBHOOK_PARTNER_CONCURRENCY | 4 | attempts in flight per partner endpoint, all replicas together |
 * | PARTNER_QUOTE_TTL | 10 minutes | quote validity and reservation (the description fixes 10 minutes; tests shorten it) |
 */
import { Config, Context, Duration, Layer } from "effect"
import { durationSetting } from "../platform/DurationSetting.js"

export interface PartnerSettings {
  readonly reviewThresholdCents: number
  readonly skewSeconds: number
  readonly webhookRetryBase: Duration.Duration
  readonly webhookTimeout: Duration.Duration
  readonly webhookPollInterval: Duration.Duration
  readonly webhookConcurrency: number
  readonly webhookPartnerConcurrency: number
  readonly quoteTtl: Duration.Duration
}

export const partnerConfig: Config.Config<PartnerSettings> = Config.all({
  reviewThresholdCents: Config.integer("REVIEW_THRESHOLD_CENTS").pipe(Config.withDefault(2_500_000)),
  skewSeconds: Config.integer("PARTNER_SKEW_SECONDS").pipe(Config.withDefault(300)),
  webhookRetryBase: durationSetting("WEBHOOK_RETRY_BASE", Duration.seconds(5)),
  webhookTimeout: durationSetting("WEBHOOK_TIMEOUT", Duration.seconds(5)),
  webhookPollInterval: durationSetting("WEBHOOK_POLL_INTERVAL", Duration.seconds(1)),
  // An attempt in flight costs a socket and a fiber; 64 lets 16 receivers start hanging at once
  // (4 each) before a healthy partner waits for a slot, and the breaker moves them out within 3 attempts.
  webhookConcurrency: Config.integer("WEBHOOK_CONCURRENCY").pipe(
    Config.withDefault(64),
    Config.validate({ message: "WEBHOOK_CONCURRENCY must be at least 1", validation: (n) => n >= 1 })
  ),
  webhookPartnerConcurrency: Config.integer("WEBHOOK_PARTNER_CONCURRENCY").pipe(
    Config.withDefault(4),
    Config.validate({ message: "WEBHOOK_PARTNER_CONCURRENCY must be at least 1", validation: (n) => n >= 1 })
  ),
  quoteTtl: durationSetting("PARTNER_QUOTE_TTL", Duration.minutes(10))
})

export class PartnerConfig extends Context.Tag("partner/PartnerConfig")<PartnerConfig, PartnerSettings>() {
  static readonly Live = Layer.effect(PartnerConfig, partnerConfig)
}
