/**
 * Settings of the portfolio and bulk operations (docs/portfolio.md):
 *
 *   REGISTRAR_CONCURRENCY      registrar calls in flight per process (default 16)
 *   REGISTRAR_SANDBOX_LATENCY  the sandbox registrar's slowest answer (default 120 millis; the
 *                              fastest is a third of it)
 *   BULK_JOB_CONCURRENCY       bulk jobs run at once per process (default 2)
 */
import { Config, Context, Duration, Effect, Layer } from "effect"
import { durationSetting } from "../platform/DurationSetting.js"

export interface PortfolioConfigShape {
  readonly registrarConcurrency: number
  readonly sandboxLatency: { readonly min: Duration.Duration; readonly max: Duration.Duration }
  readonly jobConcurrency: number
}

export class PortfolioConfig extends Context.Tag("app/PortfolioConfig")<PortfolioConfig, PortfolioConfigShape>() {
  static readonly Live = Layer.effect(
    PortfolioConfig,
    Effect.gen(function*() {
      const registrarConcurrency = yield* Config.integer("REGISTRAR_CONCURRENCY").pipe(Config.withDefault(16))
      const latency = yield* durationSetting("REGISTRAR_SANDBOX_LATENCY", Duration.millis(120))
      const jobConcurrency = yield* Config.integer("BULK_JOB_CONCURRENCY").pipe(Config.withDefault(2))
      return {
        registrarConcurrency: Math.max(1, registrarConcurrency),
        sandboxLatency: { min: Duration.millis(Math.floor(Duration.toMillis(latency) / 3)), max: latency },
        jobConcurrency: Math.max(1, jobConcurrency)
      }
    })
  )
}
