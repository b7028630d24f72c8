/** SQL for webhook endpoints, deliveries and attempts. */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { PartnerEnvironment } from "../Auth.js"

export interface EndpointRow {
  readonly partner_id: string
  readonly environment: PartnerEnvironment
  readonly url: string
  readonly secret_sealed: string
  readonly active: boolean
  readonly created_at: Date
}

export interface ClaimedDelivery {
  readonly id: string
  readonly event_id: string
  readonly partner_id: string
  readonly environment: PartnerEnvironment
  readonly attempts: number
}

export interface DeliveryEvent {
  readonly id: string
  readonly type: string
  readonly partner_id: string
  readonly data: unknown
  readonly created_at: Date
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    upsertEndpoint: (e: { partnerId: string; environment: PartnerEnvironment; url: string; secretSealed: string }) =>
      sql<EndpointRow>`
        insert into partner_webhooks (partner_id, environment, url, secret_sealed)
        values (${e.partnerId}, ${e.environment}, ${e.url}, ${e.secretSealed})
        on conflict (partner_id, environment) do update
          set url = excluded.url, secret_sealed = excluded.secret_sealed, active = true, disabled_reason = null, updated_at = now()
        returning *`.pipe(Effect.map((rows) => rows[0])),

    endpoint: (partnerId: string, environment: PartnerEnvironment) =>
      sql<EndpointRow>`select * from partner_webhooks where partner_id = ${partnerId} and environment = ${environment}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),

    disableEndpoint: (partnerId: string, environment: PartnerEnvironment, reason: string) =>
      sql`update partner_webhooks set active = false, disabled_reason = ${reason}, updated_at = now()
          where partner_id = ${partnerId} and environment = ${environment}`.pipe(Effect.asVoid),

    /** Claims due deliveries for `leaseSeconds` (any replica; SKIP LOCKED, so never twice). */
    claimDue: (limit: number, leaseSeconds: number) =>
      sql<ClaimedDelivery>`
        update partner_webhook_deliveries d
        set locked_until = now() + ${`${leaseSeconds} seconds`}::interval
        where d.id in (
          select id from partner_webhook_deliveries
          where status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
          order by next_attempt_at, id
          limit ${limit}
          for update skip locked)
        returning d.id, d.event_id, d.partner_id, d.environment, d.attempts`,

    event: (id: string) =>
      sql<DeliveryEvent>`select id, type, partner_id, data, created_at from partner_events where id = ${id}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),

    recordAttempt: (a: { deliveryId: string; attempt: number; url: string; startedAt: Date; durationMs: number; status: number | null; error: string | null }) =>
      sql`insert into partner_webhook_attempts (delivery_id, attempt, url, started_at, duration_ms, status, error)
          values (${a.deliveryId}, ${a.attempt}, ${a.url}, ${a.startedAt}, ${a.durationMs}, ${a.status}, ${a.error})`.pipe(Effect.asVoid),

    finish: (id: string, status: "delivered" | "failed" | "cancelled", attempts: number, lastStatus: number | null, error: string | null) =>
      sql`update partner_webhook_deliveries
          set status = ${status}, attempts = ${attempts}, last_status = ${lastStatus}, last_error = ${error},
              locked_until = null, finished_at = now()
          where id = ${id}`.pipe(Effect.asVoid),

    retryLater: (id: string, attempts: number, delayMs: number, lastStatus: number | null, error: string | null) =>
      sql`update partner_webhook_deliveries
          set attempts = ${attempts}, last_status = ${lastStatus}, last_error = ${error}, locked_until = null,
              next_attempt_at = now() + ${`${delayMs} milliseconds`}::interval
          where id = ${id}`.pipe(Effect.asVoid)
  }
})

export class WebhookRepo extends Context.Tag("app/PartnerWebhookRepo")<WebhookRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(WebhookRepo, make)
}
