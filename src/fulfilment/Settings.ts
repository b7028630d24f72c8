/**
 * Fulfilment settings (the delivery of sold names), read with `Config` by this capability.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | DELIVERY_AUTOSTART | true | deliveries start by themselves once an order is paid and not held; `false` leaves them to operators (`order deliveries retry`) |
 * | DELIVERY_STATUS_POLL | 1 second (sandbox registrar), 5 minutes (live) | how often a transfer in progress is asked of the registrar |
 * | DELIVERY_RETRY_BASE | 5 seconds | back-off after a temporary registrar failure: 1×, 4×, 16×… this |
 * | DELIVERY_MAX_ATTEMPTS | 8 | temporary failures before the delivery fails for good (then an operator decides) |
 * | DELIVERY_CODE_TTL | 15 minutes | how long an auth code's one-time retrieve_url is valid |
 * | DELIVERY_SANDBOX_TRANSFER | 2 seconds | how long the sandbox registrar takes to complete a transfer |
 * | DELIVERY_CONCURRENCY | 4 | deliveries run at once per process |
 * | DELIVERY_LEASE | 2 minutes | how long a process's claim on a running delivery lasts unrenewed: after a crash, another process resumes it once this has passed (renewed every third of it while the step runs) |
 */
import { Config, Context, Duration, Layer, Option } from "effect"
import { durationSetting } from "../platform/DurationSetting.js"

export interface FulfilmentSettings {
  readonly autostart: boolean
  readonly statusPoll: Option.Option<Duration.Duration>
  readonly retryBase: Duration.Duration
  readonly maxAttempts: number
  readonly codeTtl: Duration.Duration
  readonly sandboxTransfer: Duration.Duration
  readonly concurrency: number
  readonly lease: Duration.Duration
}

export const fulfilmentConfig: Config.Config<FulfilmentSettings> = Config.all({
  autostart: Config.boolean("DELIVERY_AUTOSTART").pipe(Config.withDefault(true)),
  // 0 (unset): by registrar, sandbox 2 seconds, live 5 minutes.
  statusPoll: durationSetting("DELIVERY_STATUS_POLL", 0).pipe(
    Config.map((d) => (Duration.toMillis(d) === 0 ? Option.none() : Option.some(d)))
  ),
  retryBase: durationSetting("DELIVERY_RETRY_BASE", "5 seconds"),
  maxAttempts: Config.integer("DELIVERY_MAX_ATTEMPTS").pipe(
    Config.validate({
      message: "DELIVERY_MAX_ATTEMPTS must be between 1 and 50",
      validation: (n) => n >= 1 && n <= 50
    }),
    Config.withDefault(8)
  ),
  codeTtl: durationSetting("DELIVERY_CODE_TTL", "15 minutes"),
  sandboxTransfer: durationSetting("DELIVERY_SANDBOX_TRANSFER", "2 seconds"),
  concurrency: Config.integer("DELIVERY_CONCURRENCY").pipe(
    Config.validate({ message: "DELIVERY_CONCURRENCY must be between 1 and 64", validation: (n) => n >= 1 && n <= 64 }),
    Config.withDefault(4)
  ),
  lease: durationSetting("DELIVERY_LEASE", Duration.minutes(2)).pipe(
    Config.validate({
      message: "DELIVERY_LEASE must be at least 1 second",
      validation: (d) => Duration.toMillis(d) >= 1_000
    })
  )
})

export class FulfilmentConfig
  extends Context.Tag("fulfilment/FulfilmentConfig")<FulfilmentConfig, FulfilmentSettings>()
{
  static readonly Live = Layer.effect(FulfilmentConfig, fulfilmentConfig)
}
