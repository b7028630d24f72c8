/**
 * SQL for webhook endpoints, deliveries and attempts: one repository, its queries in three files
 * by who asks (RepoEndpoints.ts the endpoint and its breaker, RepoDeliveries.ts the partner's
 * deliveries and redelivery, RepoWorker.ts the delivery worker). Rows are decoded by the schemas
 * of RepoRows.ts; a database error is a defect here (`Effect.orDie`), never a service's concern.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { deliveryQueries } from "./RepoDeliveries.js"
import { endpointQueries } from "./RepoEndpoints.js"
import { workerQueries } from "./RepoWorker.js"

export {
  AttemptRow,
  ClaimedDelivery,
  type ClaimPool,
  DeliveryRow,
  DeliveryStatus,
  DeliveryTarget,
  EndpointRow,
  REDELIVER_BATCH
} from "./RepoRows.js"

const make = Effect.map(SqlClient.SqlClient, (sql) => ({
  ...endpointQueries(sql),
  ...deliveryQueries(sql),
  ...workerQueries(sql)
}))

export class WebhookRepo extends Effect.Service<WebhookRepo>()("app/PartnerWebhookRepo", { effect: make }) {
  /** Kept for the existing wiring (src/partner/webhooks/DeliveryQueue.ts, src/partner/webhooks/Gauges.ts). */
  static readonly Live = WebhookRepo.Default
}
