/**
 * Availability engine, search stream and alternates settings (docs/search.md).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | ALTERNATE_TLDS | com,net,org,io,co,ai,app,dev,xyz | TLDs tried for the label of a plain `label.tld` search |
 * | AVAILABILITY_UPSTREAM_TIMEOUT | 3 seconds | time limit of one upstream call (registrar check, RDAP) inside a check |
 * | AVAILABILITY_UPSTREAM_CONCURRENCY | 32 | calls in flight per upstream server per process |
 * | AVAILABILITY_BREAKER_FAILURES | 5 | consecutive failures that open an upstream's circuit |
 * | AVAILABILITY_BREAKER_COOLDOWN | 30 seconds | how long an open circuit fails fast before a trial call |
 * | AVAILABILITY_TTL_<STATE> | 60 s, 10 min, 6 h, 0 | cache lifetime of an upstream answer per state (0 = not cached) |
 */
import { Config, Context, Duration, Layer } from "effect"
import { durationSetting } from "../platform/DurationSetting.js"

export interface AvailabilitySettings {
  /** TLDs tried for the label of a plain `label.tld` search (ALTERNATE_TLDS, comma list). */
  readonly alternateTlds: ReadonlyArray<string>
  /** Time limit of one upstream call (registrar check, RDAP) inside a check (AVAILABILITY_UPSTREAM_TIMEOUT). */
  readonly upstreamTimeout: Duration.Duration
  /** Calls in flight per upstream server (registrar, each RDAP server) per process (AVAILABILITY_UPSTREAM_CONCURRENCY). */
  readonly upstreamConcurrency: number
  /** Consecutive failures that open an upstream's circuit (AVAILABILITY_BREAKER_FAILURES). */
  readonly breakerFailures: number
  /** How long an open circuit fails fast before a trial call (AVAILABILITY_BREAKER_COOLDOWN). */
  readonly breakerCooldown: Duration.Duration
  /** Cache lifetime of an upstream answer per state (AVAILABILITY_TTL_<STATE>; 0 = not cached). */
  readonly ttl: {
    readonly available: Duration.Duration
    readonly premium: Duration.Duration
    readonly registered: Duration.Duration
    readonly unknown: Duration.Duration
  }
}

const DEFAULT_ALTERNATE_TLDS = ["com", "net", "org", "io", "co", "ai", "app", "dev", "xyz"]

export const availabilityConfig: Config.Config<AvailabilitySettings> = Config.all({
  alternateTlds: Config.string("ALTERNATE_TLDS").pipe(
    Config.map((s) => s.split(",").map((t) => t.trim().toLowerCase().replace(/^\.+/, "")).filter((t) => t !== "")),
    Config.withDefault(DEFAULT_ALTERNATE_TLDS)
  ),
  upstreamTimeout: durationSetting("AVAILABILITY_UPSTREAM_TIMEOUT", Duration.seconds(3)),
  upstreamConcurrency: Config.integer("AVAILABILITY_UPSTREAM_CONCURRENCY").pipe(Config.withDefault(32)),
  breakerFailures: Config.integer("AVAILABILITY_BREAKER_FAILURES").pipe(Config.withDefault(5)),
  breakerCooldown: durationSetting("AVAILABILITY_BREAKER_COOLDOWN", Duration.seconds(30)),
  ttl: Config.all({
    available: durationSetting("AVAILABILITY_TTL_AVAILABLE", Duration.seconds(60)),
    premium: durationSetting("AVAILABILITY_TTL_PREMIUM", Duration.minutes(10)),
    registered: durationSetting("AVAILABILITY_TTL_REGISTERED", Duration.hours(6)),
    unknown: durationSetting("AVAILABILITY_TTL_UNKNOWN", Duration.zero)
  })
})

export class AvailabilityConfig
  extends Context.Tag("availability/AvailabilityConfig")<AvailabilityConfig, AvailabilitySettings>()
{
  static readonly Live = Layer.effect(AvailabilityConfig, availabilityConfig)
}
