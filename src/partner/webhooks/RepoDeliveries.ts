/**
 * SQL of the partner's view of its deliveries (newest first, with their attempts), of
 * redelivery (which events failed since a time, and a new delivery queued for one: one pending
 * delivery per event) and of new events' deliveries (the outbox's `DeliveryQueue`). The events
 * themselves are the events slice's, read through its Outbox. A database error is a defect here.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { bulkInsert } from "../../platform/db/BulkInsert.js"
import { makeId } from "../../platform/Ids.js"
import type { PartnerEnvironment } from "../Auth.js"
import type { QueuedEvent } from "../events/DeliveryQueue.js"
import { DeliveryRow, DeliveryStatus, EventId, Id, LoggedAttemptRow, Owner, REDELIVER_BATCH } from "./RepoRows.js"

const DeliveriesRequest = Schema.Struct({
  ...Owner.fields,
  status: Schema.optional(DeliveryStatus),
  eventId: Schema.optional(Schema.String),
  before: Schema.NullOr(Schema.String),
  limit: Schema.Number
})

const deliveryRowsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: DeliveriesRequest,
    Result: DeliveryRow,
    execute: (r) =>
      sql`
        select d.id, d.event_id, d.status, d.attempts, d.next_attempt_at, d.last_status,
               d.last_error, d.created_at, d.finished_at
        from partner_webhook_deliveries d
        where d.partner_id = ${r.partnerId} and d.environment = ${r.environment}
          ${r.status === undefined ? sql`` : sql`and d.status = ${r.status}`}
          ${r.eventId === undefined ? sql`` : sql`and d.event_id = ${r.eventId}`}
          ${r.before === null ? sql`` : sql`and d.id < ${r.before}`}
        order by d.id desc limit ${r.limit}`
  })

const attemptsOfQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: LoggedAttemptRow,
    execute: (ids) =>
      sql`select delivery_id, attempt, started_at, duration_ms, status, error, response_body, response_body_truncated
          from partner_webhook_attempts
          where delivery_id in ${sql.in(ids)}
          order by seq desc`
  })

const failedSinceQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Struct({ ...Owner.fields, since: Schema.DateFromSelf }),
    Result: EventId,
    execute: (r) =>
      sql`
        select distinct d.event_id from partner_webhook_deliveries d
        where d.partner_id = ${r.partnerId} and d.environment = ${r.environment} and d.status = 'failed'
          and coalesce(d.finished_at, d.created_at) >= ${r.since}
          and not exists (
            select 1 from partner_webhook_deliveries o
            where o.event_id = d.event_id and o.status in ('pending', 'delivered'))
        order by d.event_id limit ${REDELIVER_BATCH}`
  })

const enqueueQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.Struct({ ...Owner.fields, eventId: Schema.String, orderingKey: Schema.NullOr(Schema.String) }),
    Result: Id,
    execute: (r) =>
      sql`
        insert into partner_webhook_deliveries (id, event_id, partner_id, environment, ordering_key)
        select ${makeId("whd")}, ${r.eventId}, w.partner_id, w.environment, ${r.orderingKey}
        from partner_webhooks w
        where w.partner_id = ${r.partnerId} and w.environment = ${r.environment} and w.active
        on conflict (event_id) where status = 'pending' do nothing
        returning id`
  })

const hasActiveEndpointQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Owner,
    Result: Schema.Struct({ one: Schema.Number }),
    execute: (r) =>
      sql`select 1 as one from partner_webhooks where partner_id = ${r.partnerId} and environment = ${r.environment} and active`
  })

/** New events' deliveries, one set-based insert (the outbox's `DeliveryQueue`, ./DeliveryQueue.ts). */
const queueManyQuery = (sql: SqlClient.SqlClient) => {
  const hasActiveEndpoint = hasActiveEndpointQuery(sql)
  return (partnerId: string, environment: PartnerEnvironment, events: ReadonlyArray<QueuedEvent>) =>
    Effect.gen(function*() {
      const hooks = yield* hasActiveEndpoint({ partnerId, environment })
      if (hooks.length === 0) return
      yield* bulkInsert(
        sql,
        "partner_webhook_deliveries",
        [["id", "text"], ["event_id", "text"], ["partner_id", "text"], ["environment", "text"], [
          "ordering_key",
          "text"
        ]],
        events.map((e) => ({
          id: makeId("whd"),
          event_id: e.eventId,
          partner_id: partnerId,
          environment,
          ordering_key: e.orderingKey
        }))
      )
    }).pipe(Effect.orDie)
}

/** The partner's deliveries and redelivery, of the repository. */
export const deliveryQueries = (sql: SqlClient.SqlClient) => {
  const deliveryRows = deliveryRowsQuery(sql)
  const attemptsOf = attemptsOfQuery(sql)
  const failedSince = failedSinceQuery(sql)
  const enqueue = enqueueQuery(sql)
  const queueMany = queueManyQuery(sql)
  return {
    /** Deliveries newest first (by id, below `before` when given), `limit + 1` read to tell whether more follow. */
    deliveries: (
      partnerId: string,
      environment: PartnerEnvironment,
      filters: { readonly status?: DeliveryStatus | undefined; readonly eventId?: string | undefined },
      before: string | null,
      limit: number
    ) =>
      Effect.gen(function*() {
        const rows = yield* deliveryRows({
          partnerId,
          environment,
          ...(filters.status === undefined ? {} : { status: filters.status }),
          ...(filters.eventId === undefined ? {} : { eventId: filters.eventId }),
          before,
          limit: limit + 1
        })
        const page = rows.slice(0, limit)
        const attempts = page.length === 0 ? [] : yield* attemptsOf(page.map((d) => d.id))
        return { deliveries: page, attempts, hasMore: rows.length > limit }
      }).pipe(Effect.orDie),

    /** Event ids whose delivery failed at or after `since` and that were neither delivered since nor are pending. */
    failedSince: (partnerId: string, environment: PartnerEnvironment, since: Date) =>
      failedSince({ partnerId, environment, since }).pipe(
        Effect.map((rows) => rows.map((r) => r.event_id)),
        Effect.orDie
      ),

    /**
     * Queues a new delivery of the partner's event to its active endpoint: true when queued,
     * false when one is already pending (a unique index admits one pending delivery per event)
     * or there is no active endpoint.
     */
    enqueue: (partnerId: string, environment: PartnerEnvironment, eventId: string, orderingKey: string | null) =>
      enqueue({ partnerId, environment, eventId, orderingKey }).pipe(
        Effect.map((r) => r._tag === "Some"),
        Effect.orDie
      ),

    /** New events' deliveries when the partner has an active endpoint (caller's transaction). */
    queueMany
  }
}
