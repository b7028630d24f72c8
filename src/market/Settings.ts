/**
 * Marketplace inventory settings: demo catalogue, sandbox inventory, listing pages (docs/market.md).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | DEMO_LISTINGS | auto | `auto` seeds the demo catalogue only on the embedded database; `true`/`false` force it |
 * | SANDBOX_INVENTORY | true | seed the synthetic sandbox inventory |
 * | LISTINGS_COUNT_CACHE_TTL | 5 seconds | how long a listing page may reuse a `total` counted for the same filters |
 */
import { Config, Context, Duration, Layer } from "effect"
import { durationSetting } from "../platform/DurationSetting.js"

export interface MarketSettings {
  readonly demoListings: "auto" | "true" | "false"
  readonly sandboxInventory: boolean
  readonly countCacheTtl: Duration.Duration
}

export const marketConfig: Config.Config<MarketSettings> = Config.all({
  demoListings: Config.literal("auto", "true", "false")("DEMO_LISTINGS").pipe(Config.withDefault("auto" as const)),
  sandboxInventory: Config.boolean("SANDBOX_INVENTORY").pipe(Config.withDefault(true)),
  countCacheTtl: durationSetting("LISTINGS_COUNT_CACHE_TTL", Duration.seconds(5))
})

export class MarketConfig extends Context.Tag("market/MarketConfig")<MarketConfig, MarketSettings>() {
  static readonly Live = Layer.effect(MarketConfig, marketConfig)
}
