/**
 * The one way a duration setting is read from the environment (every `*_TIMEOUT`, `*_TTL`,
 * `*_INTERVAL`… of the platform and of each capability's Settings.ts).
 *
 * Accepted: a number and a unit — long (`5 minutes`, `24 hours`, `250 millis`, as Effect's
 * `Duration` writes them) or short (`30 s`, `30s`, `250 ms`, `2 min`, `1.5 h`, `7 d`, `1 w`) — or
 * a bare `0`, which is the zero duration: the settings documented with "0 disables" (the
 * settlement, payout, reconciliation and TLD sync schedules) are turned off by it.
 *
 * CONTRACT: any other value is refused at start-up with one message that names the variable and
 * the accepted forms; a bare number other than 0 is refused (its unit would be a guess).
 */
import { Config, ConfigError, Duration, Either } from "effect"

const UNITS: ReadonlyArray<readonly [RegExp, (n: number) => Duration.Duration]> = [
  [/^(ns|nanos?|nanoseconds?)$/, (n) => Duration.nanos(BigInt(Math.round(n)))],
  [/^(us|µs|micros?|microseconds?)$/, (n) => Duration.micros(BigInt(Math.round(n)))],
  [/^(ms|millis?|milliseconds?)$/, Duration.millis],
  [/^(s|secs?|seconds?)$/, Duration.seconds],
  [/^(m|mins?|minutes?)$/, Duration.minutes],
  [/^(h|hrs?|hours?)$/, Duration.hours],
  [/^(d|days?)$/, Duration.days],
  [/^(w|weeks?)$/, Duration.weeks]
]

const FORM = /^(\d+(?:\.\d+)?)\s*([a-zµ]+)$/

/** The accepted forms, as every refusal states them. */
export const DURATION_FORMS = `a number and a unit ("5 minutes", "30 s", "250 ms", "24 hours") or 0`

/** `value` as a duration, or undefined when it is not one of the accepted forms. */
export const parseDuration = (value: string): Duration.Duration | undefined => {
  const text = value.trim().toLowerCase()
  if (/^0+(\.0+)?$/.test(text)) return Duration.zero
  const m = FORM.exec(text)
  if (m === null) return undefined
  const n = Number(m[1])
  const unit = UNITS.find(([pattern]) => pattern.test(m[2]!))
  return unit === undefined || !Number.isFinite(n) ? undefined : unit[1](n)
}

/** A duration setting `name`, `fallback` when unset. */
export const durationSetting = (name: string, fallback: Duration.DurationInput): Config.Config<Duration.Duration> =>
  Config.string(name).pipe(
    Config.mapOrFail((value) => {
      const duration = parseDuration(value)
      return duration === undefined
        ? Either.left(
          // The path is added by mapOrFail (the variable's name).
          ConfigError.InvalidData(
            [],
            `${name} must be a duration, ${DURATION_FORMS}; got ${JSON.stringify(value.slice(0, 40))}`
          )
        )
        : Either.right(duration)
    }),
    Config.withDefault(Duration.decode(fallback))
  )
