/**
 * SQL of the deliveries (`order_deliveries`, migration 0330): a delivery row is also its queue
 * item on the durable-queue engine (src/platform/jobs/DurableQueue.ts). Every write of a step is
 * guarded by the lease (`locked_by = worker`), so a worker that lost its lease writes nothing and
 * its transaction (with the step's events) rolls back. Rows are decoded by their schema; a
 * database error is a defect here, once.
 */
import type { Statement } from "@effect/sql"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Duration, Effect, Option, Schema } from "effect"
import { TRANSFER_STATES } from "../partner/orders/Deliveries.js"

const State = Schema.Literal(...TRANSFER_STATES)
const Method = Schema.NullOr(Schema.Literal("push", "auth_code"))

export const DeliveryRow = Schema.Struct({
  order_id: Schema.String,
  partner_id: Schema.String,
  environment: Schema.Literal("live", "sandbox"),
  domain: Schema.String,
  state: State,
  method: Method,
  target: Schema.NullOr(Schema.String),
  ready: Schema.Boolean,
  attempts: Schema.Number,
  last_error: Schema.NullOr(Schema.String),
  registrar_state: Schema.NullOr(Schema.String),
  started_at: Schema.NullOr(Schema.DateFromSelf),
  requested_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type DeliveryRow = typeof DeliveryRow.Type

const COLUMNS = `order_id, partner_id, environment, domain, state, method, target, ready, attempts, last_error,
  registrar_state, started_at, requested_at, created_at, updated_at`

const ms = (d: Duration.Duration) => `${Math.max(0, Math.round(Duration.toMillis(d)))} milliseconds`

/** What a step writes (unset fields are kept). */
export interface StepPatch {
  readonly state?: typeof State.Type
  readonly method?: "push" | "auth_code"
  readonly registrarState?: string | null
  readonly requested?: boolean
  readonly code?: { readonly sealed: string; readonly nonce: string; readonly expiresAt: Date }
  readonly finished?: boolean
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cols = sql.unsafe(COLUMNS)

  const one = (execute: () => Statement.Statement<unknown>) =>
    SqlSchema.findOne({ Request: Schema.Void, Result: DeliveryRow, execute })(undefined).pipe(Effect.orDie)
  const all = (execute: () => Statement.Statement<unknown>) =>
    SqlSchema.findAll({ Request: Schema.Void, Result: DeliveryRow, execute })(undefined).pipe(Effect.orDie)

  return {
    /** The order's delivery exists and is ready (or stays waiting when `ready` is false). Caller's transaction. */
    ensure: (d: { orderId: string; partnerId: string; environment: string; domain: string; ready: boolean }) =>
      Effect.asVoid(Effect.orDie(sql`
        insert into order_deliveries (order_id, partner_id, environment, domain, ready)
        values (${d.orderId}, ${d.partnerId}, ${d.environment}, ${d.domain}, ${d.ready})
        on conflict (order_id) do update set
          ready = order_deliveries.ready or excluded.ready,
          run_after = case when excluded.ready and not order_deliveries.ready then now() else order_deliveries.run_after end,
          updated_at = now()`)),

    /** The partner's choice, while the delivery has not started; None once it has. */
    choose: (d: {
      orderId: string
      partnerId: string
      environment: string
      domain: string
      method: "push" | "auth_code"
      target: string | null
    }) =>
      Effect.zipRight(
        Effect.orDie(sql`
          insert into order_deliveries (order_id, partner_id, environment, domain)
          values (${d.orderId}, ${d.partnerId}, ${d.environment}, ${d.domain})
          on conflict (order_id) do nothing`),
        one(() =>
          sql`update order_deliveries set method = ${d.method}, target = ${d.target}, updated_at = now()
              where order_id = ${d.orderId} and started_at is null returning ${cols}`
        )
      ),

    byOrder: (orderId: string) => one(() => sql`select ${cols} from order_deliveries where order_id = ${orderId}`),

    /** Due deliveries for this worker (a lease each); never one another worker holds. */
    claim: (workerId: string, limit: number, lease: Duration.Duration) =>
      all(() =>
        sql`
          update order_deliveries set locked_by = ${workerId}, locked_until = now() + ${ms(lease)}::interval,
            started_at = coalesce(started_at, now())
          where order_id in (
            select order_id from order_deliveries
            where ready and state not in ('completed', 'failed') and run_after <= now()
              and (locked_until is null or locked_until < now())
            order by run_after
            limit ${limit}
            for update skip locked)
          returning ${cols}`
      ),

    /** This order's unfinished delivery for this worker, due or not, ready or not; None while another holds it. */
    claimOne: (orderId: string, workerId: string, lease: Duration.Duration) =>
      one(() =>
        sql`
          update order_deliveries set locked_by = ${workerId}, locked_until = now() + ${ms(lease)}::interval,
            started_at = coalesce(started_at, now())
          where order_id = ${orderId} and state not in ('completed', 'failed')
            and (locked_until is null or locked_until < now())
          returning ${cols}`
      ),

    renew: (orderId: string, workerId: string, lease: Duration.Duration) =>
      Effect.map(
        one(() =>
          sql`update order_deliveries set locked_until = now() + ${ms(lease)}::interval
              where order_id = ${orderId} and locked_by = ${workerId} returning ${cols}`
        ),
        Option.isSome
      ),

    /** One step's writes, under the lease: false when the lease was lost (nothing written). */
    step: (orderId: string, workerId: string, p: StepPatch) =>
      Effect.map(
        one(() =>
          sql`
            update order_deliveries set
              state = coalesce(${p.state ?? null}, state),
              method = coalesce(${p.method ?? null}, method),
              registrar_state = ${p.registrarState === undefined ? sql`registrar_state` : sql`${p.registrarState}`},
              requested_at = ${p.requested ? sql`coalesce(requested_at, now())` : sql`requested_at`},
              auth_code_sealed = ${p.code ? sql`${p.code.sealed}` : sql`auth_code_sealed`},
              code_nonce = ${p.code ? sql`${p.code.nonce}` : sql`code_nonce`},
              code_expires_at = ${p.code ? sql`${p.code.expiresAt}` : sql`code_expires_at`},
              finished_at = ${p.finished ? sql`now()` : sql`finished_at`},
              last_error = ${p.state === "completed" ? sql`null` : sql`last_error`},
              updated_at = now()
            where order_id = ${orderId} and locked_by = ${workerId}
            returning ${cols}`
        ),
        Option.isSome
      ),

    /** The run is over: the next one is due after `next`. */
    release: (orderId: string, workerId: string, next: Duration.Duration) =>
      Effect.asVoid(Effect.orDie(sql`
        update order_deliveries set locked_by = null, locked_until = null, run_after = now() + ${ms(next)}::interval
        where order_id = ${orderId} and locked_by = ${workerId}`)),

    /** A temporary failure: counted, and the next run after `delay`. */
    retryLater: (orderId: string, workerId: string, error: string, delay: Duration.Duration) =>
      Effect.asVoid(Effect.orDie(sql`
        update order_deliveries set attempts = attempts + 1, last_error = ${error}, locked_by = null, locked_until = null,
          run_after = now() + ${ms(delay)}::interval, updated_at = now()
        where order_id = ${orderId} and locked_by = ${workerId}`)),

    /** Failed for good (under the lease, or by an operator when `workerId` is null). */
    fail: (orderId: string, workerId: string | null, error: string, counted: boolean) =>
      Effect.map(
        one(() =>
          sql`
            update order_deliveries set state = 'failed', last_error = ${error}, finished_at = now(), updated_at = now(),
              attempts = attempts + ${counted ? 1 : 0}, locked_by = null, locked_until = null
            where order_id = ${orderId} ${workerId === null ? sql`` : sql`and locked_by = ${workerId}`}
            returning ${cols}`
        ),
        Option.isSome
      ),

    /** An operator's retry: from the start, at once (a retry is a new request). */
    restart: (orderId: string) =>
      one(() =>
        sql`
          update order_deliveries set state = 'pending', ready = true, attempts = 0, last_error = null,
            requested_at = null, finished_at = null, run_after = now(), locked_by = null, locked_until = null,
            updated_at = now()
          where order_id = ${orderId} and state <> 'completed'
          returning ${cols}`
      ),

    /** Completed by an operator's hand. */
    markCompleted: (orderId: string) =>
      Effect.asVoid(Effect.orDie(sql`
        update order_deliveries set state = 'completed', finished_at = now(), last_error = null, locked_by = null,
          locked_until = null, updated_at = now()
        where order_id = ${orderId}`)),

    /** The sealed auth code, once: the link's nonce, unexpired and unused; it is wiped as it is read. */
    takeCode: (orderId: string, nonce: string) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: Schema.Struct({ auth_code_sealed: Schema.String, domain: Schema.String }),
        execute: () =>
          sql`
            update order_deliveries d set code_retrieved_at = now(), auth_code_sealed = null, updated_at = now()
            from (select order_id, auth_code_sealed from order_deliveries where order_id = ${orderId} for update) old
            where d.order_id = old.order_id and d.code_nonce = ${nonce} and d.code_retrieved_at is null
              and d.code_expires_at > now() and old.auth_code_sealed is not null
            returning old.auth_code_sealed, d.domain`
      })(undefined).pipe(Effect.orDie),

    list: (state: typeof State.Type | undefined, limit: number) =>
      all(() =>
        sql`select ${cols} from order_deliveries
            where true ${state ? sql`and state = ${state}` : sql``}
            order by updated_at desc limit ${limit}`
      )
  }
})

export class DeliveryRepo extends Effect.Service<DeliveryRepo>()("fulfilment/DeliveryRepo", { effect: make }) {
  /** Kept for the existing wiring (src/fulfilment/Port.ts). */
  static readonly Live = DeliveryRepo.Default
}
