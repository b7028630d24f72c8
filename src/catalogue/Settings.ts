/**
 * Catalogue and registrar settings: the Realtime Register back-end, price markup, TLD data
 * freshness and sync (docs/catalogue.md).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | RTR_API_URL, RTR_API_KEY, RTR_CUSTOMER | — | registrar back-end; unset URL → no registrar calls |
 * | RTR_TIMEOUT | 10 seconds | per registrar call |
 * | PRICE_MARKUP_PERCENT | 20 | markup added to registrar cost prices, in percent |
 * | TLD_STALE_AFTER | 7 days | TLD metadata older than this is reported `stale` |
 * | TLD_SYNC_INTERVAL | 24 hours | how often the scheduled fiber re-syncs TLD data and prices (0 disables) |
 * | CATALOGUE_CACHE_TTL | 5 seconds | how long a process may serve catalogue data written by another process |
 */
import { Config, Context, Duration, Layer, type Option, type Redacted } from "effect"
import { durationSetting } from "../platform/DurationSetting.js"

export interface CatalogueSettings {
  /** Registrar back-end (Realtime Register). Unset URL → no registrar calls. */
  readonly rtr: {
    readonly apiUrl: Option.Option<string>
    readonly apiKey: Option.Option<Redacted.Redacted>
    readonly customer: Option.Option<string>
    readonly timeout: Duration.Duration
    /** Markup added to registrar cost prices, in percent. */
    readonly markupPercent: number
  }
  /** TLD metadata older than this is reported `stale`. */
  readonly tldStaleAfter: Duration.Duration
  /** How often the scheduled fiber re-syncs TLD data and prices (0 disables). */
  readonly tldSyncInterval: Duration.Duration
  /** How long a process may serve catalogue (TLD/price) data written by another process. */
  readonly catalogueCacheTtl: Duration.Duration
}

export const catalogueConfig: Config.Config<CatalogueSettings> = Config.all({
  rtr: Config.all({
    apiUrl: Config.option(Config.string("RTR_API_URL")),
    apiKey: Config.option(Config.redacted("RTR_API_KEY")),
    customer: Config.option(Config.string("RTR_CUSTOMER")),
    timeout: durationSetting("RTR_TIMEOUT", Duration.seconds(10)),
    markupPercent: Config.number("PRICE_MARKUP_PERCENT").pipe(Config.withDefault(20))
  }),
  tldStaleAfter: durationSetting("TLD_STALE_AFTER", Duration.days(7)),
  tldSyncInterval: durationSetting("TLD_SYNC_INTERVAL", Duration.hours(24)),
  catalogueCacheTtl: durationSetting("CATALOGUE_CACHE_TTL", Duration.seconds(5))
})

export class CatalogueConfig extends Context.Tag("catalogue/CatalogueConfig")<CatalogueConfig, CatalogueSettings>() {
  static readonly Live = Layer.effect(CatalogueConfig, catalogueConfig)
}
