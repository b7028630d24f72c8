/**
 * Every background fiber of the service, in one place. Each is a scoped layer: started after the
 * services it uses, interrupted on shutdown before the database closes. `WORKERS=false` runs a
 * pure HTTP replica.
 *
 * - rate-limit and idempotency-key janitors (any replica)
 * - deliveries of sold names (src/fulfilment: claimed per order, any replica)
 * - TLD and price sync from the registrar (singleton across replicas, every TLD_SYNC_INTERVAL;
 *   only when a registrar is configured)
 */
import { Duration, Effect, Layer } from "effect"
import { AvailabilityWorkersLive } from "../availability/Layer.js"
import { Catalogue } from "../catalogue/Catalogue.js"
import { CatalogueConfig } from "../catalogue/Settings.js"
import { CheckoutWorkersLive } from "../checkout/Layer.js"
import { FulfilmentWorkersLive } from "../fulfilment/Layer.js"
import { IdentityJanitorLive } from "../identity/Janitor.js"
import { PartnerWorkersLive } from "../partner/Layer.js"
import { AppConfig } from "../platform/Config.js"
import { IdempotencyJanitorLive } from "../platform/http/Idempotency.js"
import { RateLimitJanitorLive } from "../platform/http/RateLimit.js"
import { schedule } from "../platform/jobs/Singleton.js"
import { BulkWorkersLive } from "../portfolio/Layer.js"
import { ToolWorkersLive } from "../tools/Layer.js"

const TldSyncLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const catalogueSettings = yield* CatalogueConfig
    const catalogue = yield* Catalogue
    if (catalogue.mode === "sandbox" || Duration.toMillis(catalogueSettings.tldSyncInterval) === 0) return
    const job = Effect.gen(function*() {
      const report = yield* catalogue.syncTlds()
      const prices = yield* catalogue.syncPrices
      yield* Effect.logInfo("registry data synced").pipe(
        Effect.annotateLogs({ tlds: report.synced.length, failed: report.failed.length, prices: prices.updated })
      )
    })
    yield* Effect.forkScoped(schedule("tld-sync", catalogueSettings.tldSyncInterval, job))
  })
)

export const WorkersLive = Layer.unwrapEffect(
  Effect.map(
    AppConfig,
    (config) => (config.workers
      ? Layer.mergeAll(
        RateLimitJanitorLive,
        IdempotencyJanitorLive,
        IdentityJanitorLive,
        TldSyncLive,
        AvailabilityWorkersLive,
        PartnerWorkersLive,
        ToolWorkersLive,
        CheckoutWorkersLive,
        BulkWorkersLive,
        FulfilmentWorkersLive
      )
      : Layer.empty)
  )
)
