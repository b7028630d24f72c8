/**
 * The webhook delivery backlog as `/metrics` gauges (platform/observability/Metrics.ts reads them at scrape
 * time through `ScrapeGauges`; the deliveries table stays this capability's own).
 */
import { Effect, Layer } from "effect"
import { ScrapeGauges } from "../../platform/observability/Metrics.js"
import { BREAKER_THRESHOLD } from "./Delivery.js"
import { WebhookRepo } from "./Repo.js"

export const WebhookGaugesLive = Layer.effect(
  ScrapeGauges,
  Effect.map(WebhookRepo, (repo) => ({
    read: Effect.map(repo.backlog(BREAKER_THRESHOLD), (row) => [
      {
        name: "webhook_deliveries_pending",
        help: "Webhook deliveries not yet delivered, failed or cancelled.",
        samples: [[[], row.pending]]
      },
      {
        name: "webhook_deliveries_due",
        help: "Pending webhook deliveries whose next attempt time has come.",
        samples: [[[], row.due]]
      },
      {
        name: "webhook_delivery_lag_seconds",
        help:
          "Age of the oldest webhook delivery that could be sent now: due, not behind an earlier event of its order, to an endpoint that answers (0 when none).",
        samples: [[[], Math.max(0, row.lag ?? 0)]]
      }
    ])
  }))
).pipe(Layer.provide(WebhookRepo.Live))
