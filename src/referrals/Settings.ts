/**
 * Referral settings, read with `Config` by this capability.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | REFERRAL_WINDOW_DAYS | 30 | a purchase this long after the last click on a link is still that link's referral sale |
 * | REFERRAL_REPEAT_WINDOW | 30 minutes | a visitor's click on a link within this of their previous click on it is recorded, not unique (decided at write time against `referral_visitors`, shared by replicas) |
 * | REFERRAL_FLUSH_INTERVAL | 100 millis | the click writer's batch period |
 * | REFERRAL_FLUSH_BATCH | 500 | a batch is written as soon as this many clicks wait |
 */
import { Config, Context, Duration, Layer } from "effect"
import { durationSetting } from "../platform/DurationSetting.js"

export interface ReferralSettings {
  readonly windowDays: number
  readonly repeatWindow: Duration.Duration
  readonly flushInterval: Duration.Duration
  readonly flushBatch: number
}

export const referralConfig: Config.Config<ReferralSettings> = Config.all({
  windowDays: Config.integer("REFERRAL_WINDOW_DAYS").pipe(
    Config.validate({
      message: "REFERRAL_WINDOW_DAYS must be between 1 and 365",
      validation: (n) => n >= 1 && n <= 365
    }),
    Config.withDefault(30)
  ),
  repeatWindow: durationSetting("REFERRAL_REPEAT_WINDOW", Duration.minutes(30)),
  flushInterval: durationSetting("REFERRAL_FLUSH_INTERVAL", Duration.millis(100)),
  flushBatch: Config.integer("REFERRAL_FLUSH_BATCH").pipe(
    // A batch is one insert of 10 bound parameters per click: PostgreSQL takes at most 65,535.
    Config.validate({
      message: "REFERRAL_FLUSH_BATCH must be between 1 and 5000",
      validation: (n) => n >= 1 && n <= 5_000
    }),
    Config.withDefault(500)
  )
})

export class ReferralConfig extends Context.Tag("referrals/ReferralConfig")<ReferralConfig, ReferralSettings>() {
  static readonly Live = Layer.effect(ReferralConfig, referralConfig)
}
