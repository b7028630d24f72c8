/**
 * SQL for webhook endpoints, deliveries and attempts. Rows are decoded by the schemas below;
 * a database error is a defect here (`Effect.orDie`), never a service's concern.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Context, Effect, Layer, Schema } from "effect"
import { makeId } from "../../platform/Ids.js"
import type { PartnerEnvironment } from "../Auth.js"

const Environment = Schema.Literal("live", "sandbox")
export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed", "cancelled")
export type DeliveryStatus = typeof DeliveryStatus.Type

export const EndpointRow = Schema.Struct({
  url: Schema.String,
  active: Schema.Boolean,
  disabled_reason: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type EndpointRow = typeof EndpointRow.Type

/** What the delivery worker needs of the endpoint (hot path: only these columns are read and decoded). */
export const DeliveryTarget = Schema.Struct({
  url: Schema.String,
  secret_sealed: Schema.String,
  active: Schema.Boolean
})

export const DeliveryRow = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Number,
  next_attempt_at: Schema.DateFromSelf,
  last_status: Schema.NullOr(Schema.Number),
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  finished_at: Schema.NullOr(Schema.DateFromSelf)
})
export type DeliveryRow = typeof DeliveryRow.Type

export const AttemptRow = Schema.Struct({
  delivery_id: Schema.String,
  attempt: Schema.Number,
  started_at: Schema.DateFromSelf,
  duration_ms: Schema.Number,
  status: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String)
})
export type AttemptRow = typeof AttemptRow.Type

/** Most events one `redeliver {since}` call queues; the rest are queued by calling again. */
export const REDELIVER_BATCH = 1000

export const ClaimedDelivery = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  attempts: Schema.Number,
  /** The endpoint's attempts in a row without an answer, when claimed (the breaker, see Delivery.ts). */
  endpoint_failures: Schema.Number
})

/**
 * Which endpoints a claim serves: `healthy` ones (fewer than `threshold` attempts in a row without
 * an answer) up to the per-endpoint cap, or `probe`: endpoints past the threshold whose circuit is
 * no longer open, one delivery at a time.
 */
export type ClaimPool = "healthy" | "probe"
export type ClaimedDelivery = typeof ClaimedDelivery.Type

export const DeliveryEvent = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  partner_id: Schema.String,
  data: Schema.Unknown,
  created_at: Schema.DateFromSelf
})

/** Advisory lock serialising delivery claims across replicas (held for one short transaction). */
const CLAIM_LOCK = 7_340_080

const Owner = Schema.Struct({ partnerId: Schema.String, environment: Environment })
const Id = Schema.Struct({ id: Schema.String })
const Count = Schema.Struct({ n: Schema.Number })
const EventId = Schema.Struct({ event_id: Schema.String })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const upsertEndpoint = SqlSchema.single({
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

  const endpoint = SqlSchema.findOne({
    Request: Owner,
    Result: EndpointRow,
    execute: (o) =>
      sql`select url, active, disabled_reason, created_at, updated_at from partner_webhooks
          where partner_id = ${o.partnerId} and environment = ${o.environment}`
  })

  const deliveryTarget = SqlSchema.findOne({
    Request: Owner,
    Result: DeliveryTarget,
    execute: (o) =>
      sql`select url, secret_sealed, active from partner_webhooks where partner_id = ${o.partnerId} and environment = ${o.environment}`
  })

  const deleteEndpointRow = SqlSchema.findOne({
    Request: Owner,
    Result: Schema.Struct({ partner_id: Schema.String }),
    execute: (o) =>
      sql`delete from partner_webhooks where partner_id = ${o.partnerId} and environment = ${o.environment} returning partner_id`
  })

  const cancelPending = SqlSchema.void({
    Request: Owner,
    execute: (o) =>
      sql`update partner_webhook_deliveries
          set status = 'cancelled', last_error = 'webhook endpoint removed', locked_until = null, finished_at = now()
          where partner_id = ${o.partnerId} and environment = ${o.environment} and status = 'pending'`
  })

  const lastAttempt = SqlSchema.findOne({
    Request: Owner,
    Result: AttemptRow,
    execute: (o) =>
      sql`
        select a.delivery_id, a.attempt, a.started_at, a.duration_ms, a.status, a.error
        from partner_webhook_attempts a join partner_webhook_deliveries d on d.id = a.delivery_id
        where d.partner_id = ${o.partnerId} and d.environment = ${o.environment}
        order by a.started_at desc, a.seq desc limit 1`
  })

  const pendingCount = SqlSchema.single({
    Request: Owner,
    Result: Count,
    execute: (o) =>
      sql`select count(*)::int as n from partner_webhook_deliveries
          where partner_id = ${o.partnerId} and environment = ${o.environment} and status = 'pending'`
  })

  const DeliveriesRequest = Schema.Struct({
    ...Owner.fields,
    status: Schema.optional(DeliveryStatus),
    eventId: Schema.optional(Schema.String),
    before: Schema.NullOr(Schema.String),
    limit: Schema.Number
  })

  const deliveryRows = SqlSchema.findAll({
    Request: DeliveriesRequest,
    Result: DeliveryRow,
    execute: (r) =>
      sql`
        select d.id, d.event_id, e.type as event_type, d.status, d.attempts, d.next_attempt_at, d.last_status,
               d.last_error, d.created_at, d.finished_at
        from partner_webhook_deliveries d join partner_events e on e.id = d.event_id
        where d.partner_id = ${r.partnerId} and d.environment = ${r.environment}
          ${r.status === undefined ? sql`` : sql`and d.status = ${r.status}`}
          ${r.eventId === undefined ? sql`` : sql`and d.event_id = ${r.eventId}`}
          ${r.before === null ? sql`` : sql`and d.id < ${r.before}`}
        order by d.id desc limit ${r.limit}`
  })

  const attemptsOf = SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: AttemptRow,
    execute: (ids) =>
      sql`select delivery_id, attempt, started_at, duration_ms, status, error from partner_webhook_attempts
          where delivery_id in ${sql.in(ids)}
          order by seq desc`
  })

  const ownedEvent = SqlSchema.findOne({
    Request: Schema.Struct({ ...Owner.fields, eventId: Schema.String }),
    Result: Id,
    execute: (r) =>
      sql`select id from partner_events
          where id = ${r.eventId} and partner_id = ${r.partnerId} and environment = ${r.environment}`
  })

  const failedSince = SqlSchema.findAll({
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

  const enqueue = SqlSchema.findOne({
    Request: Schema.Struct({ ...Owner.fields, eventId: Schema.String }),
    Result: Id,
    execute: (r) =>
      sql`
        insert into partner_webhook_deliveries (id, event_id, partner_id, environment, ordering_key)
        select ${makeId("whd")}, e.id, e.partner_id, e.environment, e.data -> 'order' ->> 'public_id'
        from partner_events e
        join partner_webhooks w on w.partner_id = e.partner_id and w.environment = e.environment and w.active
        where e.id = ${r.eventId} and e.partner_id = ${r.partnerId} and e.environment = ${r.environment}
        on conflict (event_id) where status = 'pending' do nothing
        returning id`
  })

  const disableEndpoint = SqlSchema.void({
    Request: Schema.Struct({ ...Owner.fields, reason: Schema.String }),
    execute: (r) =>
      sql`update partner_webhooks set active = false, disabled_reason = ${r.reason}, updated_at = now()
          where partner_id = ${r.partnerId} and environment = ${r.environment}`
  })

  const claim = SqlSchema.findAll({
    Request: Schema.Struct({
      limit: Schema.Number,
      perEndpoint: Schema.Number,
      leaseSeconds: Schema.Number,
      probe: Schema.Boolean,
      threshold: Schema.Number
    }),
    Result: ClaimedDelivery,
    execute: (r) =>
      sql`
        with candidates as (
          select c.id, c.next_attempt_at, w.consecutive_failures,
                 row_number() over (partition by w.partner_id, w.environment order by c.next_attempt_at, c.id) as rank
          from partner_webhooks w
          cross join lateral (
            select count(*)::int as n from partner_webhook_deliveries l
            where l.partner_id = w.partner_id and l.environment = w.environment
              and l.status = 'pending' and l.locked_until is not null and l.locked_until > now()
          ) busy
          cross join lateral (
            select d.id, d.next_attempt_at from partner_webhook_deliveries d
            where d.partner_id = w.partner_id and d.environment = w.environment
              and d.status = 'pending' and d.next_attempt_at <= now() and (d.locked_until is null or d.locked_until <= now())
              and not exists (
                select 1 from partner_webhook_deliveries p
                where p.ordering_key = d.ordering_key and p.status = 'pending' and p.event_id < d.event_id)
            order by d.next_attempt_at, d.id
            limit greatest(${r.probe ? 1 : r.perEndpoint} - busy.n, 0)
          ) c
          where ${
        r.probe
          ? sql`w.consecutive_failures >= ${r.threshold} and (w.circuit_open_until is null or w.circuit_open_until <= now())`
          : sql`w.consecutive_failures < ${r.threshold}`
      }
        ),
        picked as (select id, consecutive_failures from candidates order by rank, next_attempt_at, id limit ${r.limit})
        update partner_webhook_deliveries d
        set locked_until = now() + ${`${r.leaseSeconds} seconds`}::interval
        where d.id in (
          select id from partner_webhook_deliveries
          where id in (select id from picked)
            and status = 'pending' and (locked_until is null or locked_until <= now())
          for update skip locked)
        returning d.id, d.event_id, d.partner_id, d.environment, d.attempts,
                  (select p.consecutive_failures from picked p where p.id = d.id) as endpoint_failures`
  })

  const event = SqlSchema.findOne({
    Request: Schema.String,
    Result: DeliveryEvent,
    execute: (id) => sql`select id, type, partner_id, data, created_at from partner_events where id = ${id}`
  })

  const recordAttempt = SqlSchema.void({
    Request: Schema.Struct({
      deliveryId: Schema.String,
      attempt: Schema.Number,
      url: Schema.String,
      startedAt: Schema.DateFromSelf,
      durationMs: Schema.Number,
      status: Schema.NullOr(Schema.Number),
      error: Schema.NullOr(Schema.String)
    }),
    execute: (a) =>
      sql`insert into partner_webhook_attempts (delivery_id, attempt, url, started_at, duration_ms, status, error)
          values (${a.deliveryId}, ${a.attempt}, ${a.url}, ${a.startedAt}, ${a.durationMs}, ${a.status}, ${a.error})`
  })

  const Outcome = {
    attempts: Schema.Number,
    lastStatus: Schema.NullOr(Schema.Number),
    error: Schema.NullOr(Schema.String)
  }

  const finish = SqlSchema.void({
    Request: Schema.Struct({
      id: Schema.String,
      status: Schema.Literal("delivered", "failed", "cancelled"),
      ...Outcome
    }),
    execute: (r) =>
      sql`update partner_webhook_deliveries
          set status = ${r.status}, attempts = ${r.attempts}, last_status = ${r.lastStatus}, last_error = ${r.error},
              locked_until = null, finished_at = now()
          where id = ${r.id}`
  })

  const retryLater = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, delayMs: Schema.Number, ...Outcome }),
    execute: (r) =>
      sql`update partner_webhook_deliveries
          set attempts = ${r.attempts}, last_status = ${r.lastStatus}, last_error = ${r.error}, locked_until = null,
              next_attempt_at = now() + ${`${r.delayMs} milliseconds`}::interval
          where id = ${r.id}`
  })

  const owner = (partnerId: string, environment: PartnerEnvironment) => ({ partnerId, environment })

  const endpointAnswered = SqlSchema.void({
    Request: Owner,
    execute: (o) =>
      sql`update partner_webhooks set consecutive_failures = 0, circuit_open_until = null
          where partner_id = ${o.partnerId} and environment = ${o.environment} and consecutive_failures > 0`
  })

  /** One more attempt without an answer; at the threshold the circuit opens for `base × 2^(n − threshold)`, capped. */
  const endpointSilent = SqlSchema.void({
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

  /**
   * The backlog gauges. `lag` is the age of the oldest delivery that could be sent now: due, not
   * waiting behind an earlier event of its order, to an endpoint that answers (fewer than
   * `threshold` silent attempts in a row). A partner whose receiver is down holds back only its own
   * deliveries, so they do not count as our lag.
   */
  const backlog = SqlSchema.single({
    Request: Schema.Number,
    Result: Schema.Struct({ pending: Schema.Number, due: Schema.Number, lag: Schema.NullOr(Schema.Number) }),
    execute: (threshold) =>
      sql`
        select count(*)::int as pending,
               count(*) filter (where d.next_attempt_at <= now())::int as due,
               extract(epoch from now() - min(d.next_attempt_at) filter (
                 where d.next_attempt_at <= now()
                   and coalesce(w.consecutive_failures, 0) < ${threshold}
                   and not exists (
                     select 1 from partner_webhook_deliveries p
                     where p.ordering_key = d.ordering_key and p.status = 'pending' and p.event_id < d.event_id)
               ))::float8 as lag
        from partner_webhook_deliveries d
        left join partner_webhooks w on w.partner_id = d.partner_id and w.environment = d.environment
        where d.status = 'pending'`
  })

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

    /** Whether the event exists for this partner and environment. */
    ownsEvent: (partnerId: string, environment: PartnerEnvironment, eventId: string) =>
      ownedEvent({ partnerId, environment, eventId }).pipe(Effect.map((r) => r._tag === "Some"), Effect.orDie),

    /** Event ids whose delivery failed at or after `since` and that were neither delivered since nor are pending. */
    failedSince: (partnerId: string, environment: PartnerEnvironment, since: Date) =>
      failedSince({ partnerId, environment, since }).pipe(
        Effect.map((rows) => rows.map((r) => r.event_id)),
        Effect.orDie
      ),

    /**
     * Queues a new delivery of the event to the partner's active endpoint: true when queued,
     * false when one is already pending (a unique index admits one pending delivery per event).
     */
    enqueue: (partnerId: string, environment: PartnerEnvironment, eventId: string) =>
      enqueue({ partnerId, environment, eventId }).pipe(Effect.map((r) => r._tag === "Some"), Effect.orDie),

    disableEndpoint: (partnerId: string, environment: PartnerEnvironment, reason: string) =>
      disableEndpoint({ partnerId, environment, reason }).pipe(Effect.orDie),

    /**
     * Claims up to `limit` due deliveries for `leaseSeconds`, fairly: each endpoint (partner and
     * environment) gets at most `perEndpoint` leased at once across all replicas, its oldest
     * first, and endpoints take turns (rank 1 of every endpoint before rank 2 of any). A delivery
     * whose order has an earlier event still pending is not due. Claims are serialised by a
     * transaction-scoped advisory lock (so the in-flight counts are exact across replicas) and
     * rows are taken FOR UPDATE SKIP LOCKED with the due conditions re-checked: never twice.
     * Per endpoint only its first few due rows are read (ordered index scan, LIMIT per endpoint):
     * with 50,000 pending deliveries over 50 endpoints a claim took ~50 ms on PostgreSQL 15 here,
     * against ~180 ms when every due row was ranked (0087 migration has the indexes).
     */
    claimDue: (pool: ClaimPool, limit: number, perEndpoint: number, leaseSeconds: number, threshold: number) =>
      sql.withTransaction(
        Effect.zipRight(
          sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`,
          claim({ limit, perEndpoint, leaseSeconds, probe: pool === "probe", threshold })
        )
      ).pipe(Effect.orDie),

    /** The endpoint answered: its breaker closes. */
    endpointAnswered: (partnerId: string, environment: PartnerEnvironment) =>
      endpointAnswered(owner(partnerId, environment)).pipe(Effect.orDie),

    /** The endpoint did not answer (timeout, refused, reset): counted, and past the threshold its circuit opens. */
    endpointSilent: (
      partnerId: string,
      environment: PartnerEnvironment,
      breaker: { readonly threshold: number; readonly baseMs: number; readonly maxMs: number }
    ) => endpointSilent({ ...owner(partnerId, environment), ...breaker }).pipe(Effect.orDie),

    event: (id: string) => event(id).pipe(Effect.orDie),

    recordAttempt: (a: {
      deliveryId: string
      attempt: number
      url: string
      startedAt: Date
      durationMs: number
      status: number | null
      error: string | null
    }) => recordAttempt(a).pipe(Effect.orDie),

    finish: (
      id: string,
      status: "delivered" | "failed" | "cancelled",
      attempts: number,
      lastStatus: number | null,
      error: string | null
    ) => finish({ id, status, attempts, lastStatus, error }).pipe(Effect.orDie),

    retryLater: (id: string, attempts: number, delayMs: number, lastStatus: number | null, error: string | null) =>
      retryLater({ id, attempts, delayMs, lastStatus, error }).pipe(Effect.orDie),

    /** Deliveries waiting (pending), how many are due, and the age in seconds of the oldest one that could be sent. */
    backlog: (breakerThreshold: number) => backlog(breakerThreshold).pipe(Effect.orDie)
  }
})

export class WebhookRepo
  extends Context.Tag("app/PartnerWebhookRepo")<WebhookRepo, Effect.Effect.Success<typeof make>>()
{
  static readonly Live = Layer.effect(WebhookRepo, make)
}
