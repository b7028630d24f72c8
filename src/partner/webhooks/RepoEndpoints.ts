/**
 * SQL of a partner's webhook endpoint (one per partner and environment): its row, its sealed
 * secret for the worker, its removal with its pending deliveries, its last attempt and backlog,
 * and its breaker (attempts in a row without an answer). A database error is a defect here.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import type { PartnerEnvironment } from "../Auth.js"
import { AttemptRow, Count, DeliveryTarget, EndpointRow, Owner } from "./RepoRows.js"

const owner = (partnerId: string, environment: PartnerEnvironment) => ({ partnerId, environment })

const upsertEndpointQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
    Request: Schema.Struct({ ...Owner.fields, url: Schema.String, secretSealed: Schema.String }),
    Result: EndpointRow,
    execute: (e) =>
      sql`
        insert into partner_webhooks (partner_id, environment, url, secret_sealed)
        values (${e.partnerId}, ${e.environment}, ${e.url}, ${e.secretSealed})
        on conflict (partner_id, environment) do update
          set url = excluded.url, secret_sealed = excluded.secret_sealed, active = true, disabled_reason = null, updated_at = now()
        returning url, active, disabled_reason, created_at, updated_at`
  })

const endpointQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Owner,
    Result: EndpointRow,
    execute: (o) =>
      sql`select url, active, disabled_reason, created_at, updated_at from partner_webhooks
          where partner_id = ${o.partnerId} and environment = ${o.environment}`
  })

const deliveryTargetQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Owner,
    Result: DeliveryTarget,
    execute: (o) =>
      sql`select url, secret_sealed, active from partner_webhooks where partner_id = ${o.partnerId} and environment = ${o.environment}`
  })

const deleteEndpointRowQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Owner,
    Result: Schema.Struct({ partner_id: Schema.String }),
    execute: (o) =>
      sql`delete from partner_webhooks where partner_id = ${o.partnerId} and environment = ${o.environment} returning partner_id`
  })

const cancelPendingQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Owner,
    execute: (o) =>
      sql`update partner_webhook_deliveries
          set status = 'cancelled', last_error = 'webhook endpoint removed', locked_until = null, finished_at = now()
          where partner_id = ${o.partnerId} and environment = ${o.environment} and status = 'pending'`
  })

const lastAttemptQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Owner,
    Result: AttemptRow,
    execute: (o) =>
      sql`
        select a.delivery_id, a.attempt, a.started_at, a.duration_ms, a.status, a.error
        from partner_webhook_attempts a join partner_webhook_deliveries d on d.id = a.delivery_id
        where d.partner_id = ${o.partnerId} and d.environment = ${o.environment}
        order by a.started_at desc, a.seq desc limit 1`
  })

const pendingCountQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
    Request: Owner,
    Result: Count,
    execute: (o) =>
      sql`select count(*)::int as n from partner_webhook_deliveries
          where partner_id = ${o.partnerId} and environment = ${o.environment} and status = 'pending'`
  })

const disableEndpointQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Schema.Struct({ ...Owner.fields, reason: Schema.String }),
    execute: (r) =>
      sql`update partner_webhooks set active = false, disabled_reason = ${r.reason}, updated_at = now()
          where partner_id = ${r.partnerId} and environment = ${r.environment}`
  })

const endpointAnsweredQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Owner,
    execute: (o) =>
      sql`update partner_webhooks set consecutive_failures = 0, circuit_open_until = null
          where partner_id = ${o.partnerId} and environment = ${o.environment} and consecutive_failures > 0`
  })

/** One more attempt without an answer; at the threshold the circuit opens for `base × 2^(n − threshold)`, capped. */
const endpointSilentQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Schema.Struct({ ...Owner.fields, threshold: Schema.Number, baseMs: Schema.Number, maxMs: Schema.Number }),
    execute: (r) =>
      sql`update partner_webhooks
          set consecutive_failures = consecutive_failures + 1,
              circuit_open_until = case when consecutive_failures + 1 >= ${r.threshold}
                then now() + least(${r.baseMs}::float8 * power(2, least(consecutive_failures + 1 - ${r.threshold}, 30)), ${r.maxMs}::float8)
                  * interval '1 millisecond'
                else null end
          where partner_id = ${r.partnerId} and environment = ${r.environment}`
  })

/** The endpoint's operations of the repository. */
export const endpointQueries = (sql: SqlClient.SqlClient) => {
  const upsertEndpoint = upsertEndpointQuery(sql)
  const endpoint = endpointQuery(sql)
  const deliveryTarget = deliveryTargetQuery(sql)
  const deleteEndpointRow = deleteEndpointRowQuery(sql)
  const cancelPending = cancelPendingQuery(sql)
  const lastAttempt = lastAttemptQuery(sql)
  const pendingCount = pendingCountQuery(sql)
  const disableEndpoint = disableEndpointQuery(sql)
  const endpointAnswered = endpointAnsweredQuery(sql)
  const endpointSilent = endpointSilentQuery(sql)
  return {
    upsertEndpoint: (e: { partnerId: string; environment: PartnerEnvironment; url: string; secretSealed: string }) =>
      upsertEndpoint(e).pipe(Effect.orDie),

    endpoint: (partnerId: string, environment: PartnerEnvironment) =>
      endpoint(owner(partnerId, environment)).pipe(Effect.orDie),

    /** The worker's view of the endpoint: where to send and the sealed secret. */
    deliveryTarget: (partnerId: string, environment: PartnerEnvironment) =>
      deliveryTarget(owner(partnerId, environment)).pipe(Effect.orDie),

    /**
     * Removes the endpoint and cancels its pending deliveries (one transaction); false when there
     * was none. An attempt already on the wire still records its outcome.
     */
    deleteEndpoint: (partnerId: string, environment: PartnerEnvironment) =>
      sql.withTransaction(
        Effect.gen(function*() {
          const deleted = yield* deleteEndpointRow(owner(partnerId, environment))
          if (deleted._tag === "None") return false
          yield* cancelPending(owner(partnerId, environment))
          return true
        })
      ).pipe(Effect.orDie),

    /** The endpoint's most recent attempt (any delivery of this partner and environment). */
    lastAttempt: (partnerId: string, environment: PartnerEnvironment) =>
      lastAttempt(owner(partnerId, environment)).pipe(Effect.orDie),

    pendingCount: (partnerId: string, environment: PartnerEnvironment) =>
      pendingCount(owner(partnerId, environment)).pipe(Effect.map((r) => r.n), Effect.orDie),

    disableEndpoint: (partnerId: string, environment: PartnerEnvironment, reason: string) =>
      disableEndpoint({ partnerId, environment, reason }).pipe(Effect.orDie),

    /** The endpoint answered: its breaker closes. */
    endpointAnswered: (partnerId: string, environment: PartnerEnvironment) =>
      endpointAnswered(owner(partnerId, environment)).pipe(Effect.orDie),

    /** The endpoint did not answer (timeout, refused, reset): counted, and past the threshold its circuit opens. */
    endpointSilent: (
      partnerId: string,
      environment: PartnerEnvironment,
      breaker: { readonly threshold: number; readonly baseMs: number; readonly maxMs: number }
    ) => endpointSilent({ ...owner(partnerId, environment), ...breaker }).pipe(Effect.orDie)
  }
}
