/**
 * The event outbox. `append` runs inside the caller's transaction, so an event exists exactly
 * when the change it describes was committed. When the partner has an active webhook endpoint
 * for the environment, a delivery row is queued in the same transaction (`append` in
 * partner_event_append, `appendMany` through the webhooks slice's `DeliveryQueue`); the delivery
 * worker (src/partner/webhooks/Webhooks.ts) sends it, reading the event here (`byId`). Events stay readable through GET /events.
 * A delivery carries its ordering key (`data.order.public_id` for order events, `data.case.id` for
 * brokerage events): the worker delivers one order's (case's) events in id order, one at a time.
 * `append` must run inside a transaction (it takes a per-partner transaction lock).
 *
 * The contract a reader relies on: paging by `after_id`, no event is ever missed, although
 * writers commit in any order. Writers hold the partner's lock shared (they never wait for each
 * other) and give their event an id above every event committed before they took it; `list`
 * takes it exclusively, so it waits for the writers in flight and then reads (migration 0161).
 *
 * Rows are decoded by their schemas; a database error is a defect here, once.
 */
import type { Statement } from "@effect/sql"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { bulkInsert } from "../../platform/db/BulkInsert.js"
import { idTime, makeId } from "../../platform/Ids.js"
import { lockKey } from "../../platform/jobs/Singleton.js"
import type { PartnerEnvironment } from "../Auth.js"
import { DeliveryQueue } from "./DeliveryQueue.js"

const Environment = Schema.Literal("live", "sandbox")

export const EventRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  type: Schema.String,
  data: Schema.Unknown,
  created_at: Schema.DateFromSelf
})
export type EventRow = typeof EventRow.Type

/** partner_event_append's answer: null when the event went in, else the greatest id (ours was not above it). */
const Appended = Schema.Struct({ last: Schema.NullOr(Schema.String) })
const GreatestId = Schema.Struct({ id: Schema.NullOr(Schema.String) })

/** Advisory lock class of a partner's events: key `lockKey(partnerId)`, shared by writers, exclusive for the feed. */
export const EVENTS_LOCK_CLASS = 6006

/** Deliveries with the same key are sent in event order: an order's events share its public id. */
const orderingKeyOf = (data: unknown): string | null => {
  const order = (data as { order?: { public_id?: unknown } } | null)?.order
  if (typeof order?.public_id === "string") return order.public_id
  // A brokerage case's events share its id (src/partner/brokerage).
  const brokerageCase = (data as { case?: { id?: unknown } } | null)?.case
  return typeof brokerageCase?.id === "string" ? brokerageCase.id : null
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const deliveries = yield* DeliveryQueue
  const greatestId = SqlSchema.single({
    Request: Schema.String,
    Result: GreatestId,
    execute: (partnerId) => sql`select max(id) as id from partner_events where partner_id = ${partnerId}`
  })
  const list = SqlSchema.findAll({
    Request: Schema.Struct({
      partnerId: Schema.String,
      environment: Environment,
      afterId: Schema.NullOr(Schema.String),
      limit: Schema.Number
    }),
    Result: EventRow,
    execute: ({ afterId, environment, limit, partnerId }) =>
      sql`select id, partner_id, environment, type, data, created_at
          from partner_events_after(${EVENTS_LOCK_CLASS}, ${
        lockKey(partnerId)
      }, ${partnerId}, ${environment}, ${afterId}, ${limit})`
  })
  const byId = SqlSchema.findOne({
    Request: Schema.String,
    Result: EventRow,
    execute: (id) =>
      sql`select id, partner_id, environment, type, data, created_at from partner_events where id = ${id}`
  })
  const typesOf = SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: Schema.Struct({ id: Schema.String, type: Schema.String }),
    execute: (ids) => sql`select id, type from partner_events where id in ${sql.in(ids)}`
  })
  const orderKeysOf = SqlSchema.findAll({
    Request: Schema.Struct({ partnerId: Schema.String, environment: Environment, ids: Schema.Array(Schema.String) }),
    Result: Schema.Struct({ id: Schema.String, order_key: Schema.NullOr(Schema.String) }),
    execute: (r) =>
      sql`select id, data -> 'order' ->> 'public_id' as order_key from partner_events
          where id in ${sql.in(r.ids)} and partner_id = ${r.partnerId} and environment = ${r.environment}`
  })
  return {
    /** One event (a webhook delivery's body). */
    byId: (id: string) => Effect.orDie(byId(id)),

    /** The types of these events, by id (the deliveries list). */
    typesOf: (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Map<string, string>())
        : Effect.orDie(Effect.map(typesOf(ids), (rows) => new Map(rows.map((r) => [r.id, r.type])))),

    /**
     * Those of `ids` that are the partner's events in the environment, each with its order's
     * public id (null for an event about no order): what a redelivery queues.
     */
    orderKeysOf: (partnerId: string, environment: PartnerEnvironment, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Map<string, string | null>())
        : Effect.orDie(
          Effect.map(
            orderKeysOf({ partnerId, environment, ids }),
            (rows) => new Map(rows.map((r) => [r.id, r.order_key]))
          )
        ),

    append: (
      e: { partnerId: string; environment: PartnerEnvironment; type: string; data: unknown },
      /**
       * A row to insert in the same round trip, given the event's id: e.g. the order timeline row
       * that points at the event. A `select … from appended where last is null` (the CTE holding
       * the append's answer), for the insert to happen exactly when the event was inserted.
       */
      follow?: (eventId: string) => Statement.Fragment
    ) =>
      Effect.gen(function*() {
        // The partner's lock, shared until commit, then an id above the greatest committed one: a
        // feed reader (exclusive) waits for us, and one that read before we took the lock only
        // saw smaller ids (no event skipped). One round trip: lock, greatest id, event and
        // delivery in partner_event_append (migrations 0150, 0161); it answers the greatest id
        // instead when ours is not above it (another process's clock ahead of ours).
        const data = JSON.stringify(e.data)
        const orderingKey = orderingKeyOf(e.data)
        let id = makeId("evt")
        for (;;) {
          const { last } = yield* SqlSchema.single({
            Request: Schema.Void,
            Result: Appended,
            execute: () =>
              sql`
                with appended as (
                  select partner_event_append(${EVENTS_LOCK_CLASS}, ${lockKey(e.partnerId)}, ${id}, ${e.partnerId},
                    ${e.environment}, ${e.type}, ${data}::jsonb, ${makeId("whd")}, ${orderingKey}) as last
                )${follow ? sql`, followed as (${follow(id)})` : sql``}
                select last from appended`
          })(undefined)
          if (last === null) return id
          id = makeId("evt", (idTime(last) ?? Date.now()) + 1)
        }
      }).pipe(Effect.orDie),

    /**
     * Many events of one partner and environment at once (the settlement run settles hundreds of
     * orders per statement): the lock (shared, as `append`), one insert; ids increase in the order
     * given, above every committed id.
     */
    appendMany: (
      partnerId: string,
      environment: PartnerEnvironment,
      events: ReadonlyArray<{ type: string; data: unknown }>
    ) =>
      Effect.gen(function*() {
        if (events.length === 0) return [] as Array<string>
        yield* sql`select pg_advisory_xact_lock_shared(${EVENTS_LOCK_CLASS}, ${lockKey(partnerId)})`
        const last = yield* greatestId(partnerId)
        let floor = last.id ?? ""
        const ids = events.map(() => {
          let id = makeId("evt")
          if (id <= floor) id = makeId("evt", (idTime(floor) ?? Date.now()) + 1)
          floor = id
          return id
        })
        // One set-based insert per batch (a settlement statement appends hundreds).
        yield* bulkInsert(
          sql,
          "partner_events",
          [["id", "text"], ["partner_id", "text"], ["environment", "text"], ["type", "text"], ["data", "jsonb"]],
          events.map((e, i) => ({ id: ids[i], partner_id: partnerId, environment, type: e.type, data: e.data }))
        )
        yield* deliveries.queue(
          partnerId,
          environment,
          ids.map((id, i) => ({ eventId: id, orderingKey: orderingKeyOf(events[i]!.data) }))
        )
        return ids
      }).pipe(Effect.orDie),

    /**
     * Events after `afterId` (exclusive), oldest first. Waits for the partner's writers in flight
     * (partner_events_after, migration 0161), so no event commits later below the page's last id.
     */
    list: (partnerId: string, environment: PartnerEnvironment, afterId: string | null, limit: number) =>
      Effect.orDie(list({ partnerId, environment, afterId, limit }))
  }
})

export class Outbox extends Effect.Service<Outbox>()("app/PartnerOutbox", { effect: make }) {
  /** Kept for the existing wiring (src/partner/Layer.ts, the orders', brokerage's and webhooks' layers). */
  static readonly Live = Outbox.Default
}
