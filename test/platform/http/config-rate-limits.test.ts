/**
 * `RATE_LIMIT_<OP>` overrides (src/platform/Config.ts), read through the current ConfigProvider:
 * a test's map provider and the process environment find the same names.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { AppConfig, AppConfigLive } from "../../../src/platform/Config.js"

const limitsUnder = (provider: ConfigProvider.ConfigProvider) =>
  Effect.map(AppConfig, (c) => c.rateLimits).pipe(
    Effect.provide(AppConfigLive),
    Effect.withConfigProvider(provider)
  )

describe("RATE_LIMIT_<OP> overrides", () => {
  it.effect("a map provider: each numeric RATE_LIMIT_* counts, over RATE_LIMITS; other values are ignored", () =>
    Effect.gen(function*() {
      const limits = yield* limitsUnder(ConfigProvider.fromMap(
        new Map([
          ["RATE_LIMITS", JSON.stringify({ search: 3, pricing_tld: 1 })],
          ["RATE_LIMIT_PRICING_TLD", "7"],
          ["RATE_LIMIT_WHOIS_BEARER", "9"],
          ["RATE_LIMIT_BROKEN", "lots"],
          ["RATE_LIMITER", "12"]
        ])
      ))
      expect(limits).toEqual({ search: 3, pricing_tld: 7, whois_bearer: 9 })
    }))

  it.effect("the environment provider (names split on _) finds the same names", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const before = { ...process.env }
        process.env.RATE_LIMIT_PRICING_TLD = "7"
        process.env.RATE_LIMIT_WHOIS_BEARER = "9"
        process.env.RATE_LIMITS = JSON.stringify({ search: 3 })
        return before
      }),
      () =>
        Effect.map(limitsUnder(ConfigProvider.fromEnv()), (limits) =>
          expect(limits).toEqual({ search: 3, pricing_tld: 7, whois_bearer: 9 })),
      (before) =>
        Effect.sync(() => {
          for (const k of ["RATE_LIMIT_PRICING_TLD", "RATE_LIMIT_WHOIS_BEARER", "RATE_LIMITS"]) {
            if (before[k] === undefined) {
              delete process.env[k]
            } else process.env[k] = before[k]
          }
        })
    ))

  it.effect("no overrides: an empty record", () =>
    Effect.map(limitsUnder(ConfigProvider.fromMap(new Map())), (limits) => expect(limits).toEqual({})))
})
