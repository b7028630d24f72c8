/**
 * The steps of a delivery run (Fulfilment.ts's header draws them): start (the transfer
 * requested, the name unlocked, then a push or a sealed auth code), push, follow the registrar,
 * complete or fail, and what the durable queue does with a run's outcome.
 *
 * The contract: a push is asked of the registrar at most once per delivery run from `pending`
 * (the registrar is asked first where the transfer stands), and every step's writes with its
 * events are one transaction guarded by the lease, so a worker that lost its lease writes nothing.
 */
import { type Context, Duration, Effect } from "effect"
import { randomBytes } from "node:crypto"
import type { Outbox } from "../partner/events/Outbox.js"
import type { OrderDetail } from "../partner/orders/Api.js"
import type { Orders } from "../partner/orders/Orders.js"
import type { transactionOf } from "../platform/db/SqlTransaction.js"
import type { Outcome } from "../platform/jobs/DurableQueue.js"
import type { ServiceSecret } from "../platform/ServiceSecret.js"
import { type DeliveryRegistrars, RegistrarFailure } from "./Registrar.js"
import type { DeliveryRepo, DeliveryRow, StepPatch } from "./Repo.js"
import type { FulfilmentConfig } from "./Settings.js"

export const CODE_PURPOSE = "transfer-auth-code"
export const SEAL_PURPOSE = "transfer-auth-code-at-rest"
const ACTOR = "system:fulfilment"

/** What the partner must do after a delivery failed for good, by reason. */
export const actionRequired = (reason: string): string =>
  reason === "registrar_lock_60_days"
    ? "The registry refuses transfers within 60 days of the name's registration or last transfer. Nothing to do now: an operator will retry after the lock ends or refund the order; contact support to choose."
    : reason === "order_cancelled"
    ? "None: the order was refunded or cancelled."
    : "An operator reviews the delivery and retries it or refunds the order; contact support for details."

/** The signed one-time link's payload: order, nonce, expiry (ms). */
export interface CodeToken {
  readonly o: string
  readonly p: string
  readonly n: string
  readonly x: number
}

/** A run lost its lease mid-step: nothing was written; the next holder carries on. */
export class LeaseLost {
  readonly _tag = "LeaseLost"
}

/** What every step works with: its store and transaction, the registrar, the services it calls. */
export interface FulfilmentDeps {
  readonly transaction: ReturnType<typeof transactionOf>
  readonly repo: Context.Tag.Service<typeof DeliveryRepo>
  readonly registrars: Context.Tag.Service<typeof DeliveryRegistrars>
  readonly orders: Context.Tag.Service<typeof Orders>
  readonly outbox: Context.Tag.Service<typeof Outbox>
  readonly secrets: Context.Tag.Service<typeof ServiceSecret>
  readonly settings: Context.Tag.Service<typeof FulfilmentConfig>
  readonly baseUrl: string
  /** How long until the registrar is asked again about a transfer in flight, by environment. */
  readonly poll: (environment: DeliveryRow["environment"]) => Duration.Duration
}

export const orderOf = (d: FulfilmentDeps, orderId: string) => Effect.orDie(d.orders.detail(orderId))
export const eventOrder = (o: typeof OrderDetail.Type) => ({
  public_id: o.public_id,
  domain: o.domain,
  status: o.status,
  sale_price_cents: o.sale_price_cents,
  currency: o.currency
})

/** Appends a transfer.* event carrying the order as it is now, and its timeline step. */
export const emit = (
  d: FulfilmentDeps,
  row: DeliveryRow,
  type: string,
  step: string,
  data: Record<string, unknown>,
  note?: string
) =>
  Effect.gen(function*() {
    const order = yield* orderOf(d, row.order_id)
    const eventId = yield* d.outbox.append({
      partnerId: row.partner_id,
      environment: row.environment,
      type,
      data: { order: eventOrder(order), ...data }
    })
    yield* d.orders.recordTransferStep(row.order_id, step, { actor: ACTOR, eventId, note: note ?? null })
    return eventId
  })

/** One step's writes and events, in one transaction, under the lease. */
export const commitStep = <A, E, R>(
  d: FulfilmentDeps,
  row: DeliveryRow,
  worker: string,
  patch: StepPatch,
  then: Effect.Effect<A, E, R>
) =>
  d.transaction(Effect.gen(function*() {
    if (!(yield* d.repo.step(row.order_id, worker, patch))) return yield* Effect.fail(new LeaseLost())
    return yield* then
  }))

/** The lifecycle's move, unless an operator already made it. */
export const moveIfAt = (
  d: FulfilmentDeps,
  orderId: string,
  from: ReadonlyArray<string>,
  action: "start_transfer" | "confirm_delivery"
) =>
  Effect.gen(function*() {
    const order = yield* orderOf(d, orderId)
    if (from.includes(order.status)) yield* Effect.orDie(d.orders.move(orderId, action, { actor: ACTOR }))
  })

export const complete = (d: FulfilmentDeps, row: DeliveryRow, worker: string) =>
  commitStep(
    d,
    row,
    worker,
    { state: "completed", registrarState: "completed", finished: true },
    Effect.gen(function*() {
      yield* moveIfAt(d, row.order_id, ["PAID", "EXTERNALLY_PAID"], "start_transfer")
      yield* moveIfAt(d, row.order_id, ["TRANSFER_IN_PROGRESS"], "confirm_delivery")
      yield* emit(d, row, "transfer.completed", "transfer_completed", { transfer: { method: row.method } })
    })
  )

export const failFor = (
  d: FulfilmentDeps,
  row: DeliveryRow,
  reason: string,
  message: string,
  worker: string | null,
  counted: boolean
) =>
  d.transaction(Effect.gen(function*() {
    if (!(yield* d.repo.fail(row.order_id, worker, message, counted))) return yield* Effect.fail(new LeaseLost())
    yield* emit(d, row, "transfer.failed", "transfer_failed", {
      reason,
      will_retry: false,
      action_required: actionRequired(reason)
    }, message)
  }))

/** Where the registrar says the transfer stands: pending (announced once), completed, failed. */
export const follow = (d: FulfilmentDeps, row: DeliveryRow, worker: string) =>
  Effect.gen(function*() {
    const st = yield* d.registrars.of(row.environment).status(row.domain)
    if (st.status === "completed") {
      if (row.state !== "awaiting_registrar") {
        yield* commitStep(
          d,
          row,
          worker,
          { state: "awaiting_registrar", registrarState: "completed" },
          emit(d, row, "transfer.pending", "transfer_pending", { registrar_state: "completed" })
        )
      }
      yield* complete(d, row, worker)
      return Duration.zero
    }
    if (st.status === "failed") {
      return yield* new RegistrarFailure({
        temporary: false,
        reason: st.reason ?? "registrar_rejected",
        message: `The registrar reports the transfer of ${row.domain} failed${st.reason ? `: ${st.reason}` : ""}`
      })
    }
    if (st.status === "pending" && row.state !== "awaiting_registrar") {
      yield* commitStep(
        d,
        row,
        worker,
        { state: "awaiting_registrar", registrarState: "pending" },
        emit(d, row, "transfer.pending", "transfer_pending", { registrar_state: "pending" })
      )
    }
    return d.poll(row.environment)
  })

export const push = (d: FulfilmentDeps, row: DeliveryRow, worker: string) =>
  Effect.gen(function*() {
    // Asked first: a run resumed after a crash between the push and its record never pushes again.
    const registrar = d.registrars.of(row.environment)
    const before = yield* registrar.status(row.domain)
    if (before.status === "none") yield* registrar.push(row.domain, row.target ?? "")
    return yield* follow(d, { ...row, state: "pushing" }, worker)
  })

export const start = (d: FulfilmentDeps, row: DeliveryRow, worker: string) =>
  Effect.gen(function*() {
    const method = row.method ?? (row.target ? "push" : "auth_code")
    if (row.requested_at === null) {
      yield* commitStep(
        d,
        row,
        worker,
        { requested: true, method },
        emit(d, row, "transfer.requested", "transfer_requested", { transfer: { method, target: row.target } })
      )
    }
    yield* d.registrars.of(row.environment).unlock(row.domain)
    if (method === "push") {
      yield* commitStep(
        d,
        row,
        worker,
        { state: "pushing" },
        moveIfAt(d, row.order_id, ["PAID", "EXTERNALLY_PAID"], "start_transfer")
      )
      return yield* push(d, { ...row, method, state: "pushing" }, worker)
    }
    const code = yield* d.registrars.of(row.environment).authCode(row.domain)
    const nonce = randomBytes(12).toString("base64url")
    const expiresAt = new Date(Date.now() + Duration.toMillis(d.settings.codeTtl))
    const token = d.secrets.sign(
      CODE_PURPOSE,
      { o: row.order_id, p: row.partner_id, n: nonce, x: expiresAt.getTime() } satisfies CodeToken
    )
    const retrieveUrl = `${d.baseUrl}/api/partner/v1/orders/${row.order_id}/delivery/auth-code?token=${token}`
    yield* commitStep(
      d,
      row,
      worker,
      { state: "auth_code_ready", code: { sealed: d.secrets.encrypt(SEAL_PURPOSE, code), nonce, expiresAt } },
      Effect.zipRight(
        moveIfAt(d, row.order_id, ["PAID", "EXTERNALLY_PAID"], "start_transfer"),
        emit(d, row, "transfer.auth_code_ready", "auth_code_ready", {
          retrieve_url: retrieveUrl,
          expires_at: expiresAt.toISOString()
        })
      )
    )
    return d.poll(row.environment)
  })

/** One run of a claimed delivery: the next step; the delay before the next run. */
export const runStep = (
  d: FulfilmentDeps,
  row: DeliveryRow,
  worker: string
): Effect.Effect<Duration.Duration, RegistrarFailure | LeaseLost> =>
  Effect.gen(function*() {
    const order = yield* orderOf(d, row.order_id)
    if (order.status === "REFUNDED" || order.status === "CANCELLED") {
      yield* failFor(d, row, "order_cancelled", `The order is ${order.status}`, worker, false)
      return Duration.zero
    }
    if (order.status === "TRANSFER_COMPLETED" || order.status === "SETTLED") {
      // Delivered by hand: the delivery agrees.
      yield* complete(d, row, worker)
      return Duration.zero
    }
    if (order.status === "MANUAL_REVIEW") return d.poll(row.environment)
    switch (row.state) {
      case "pending":
        return yield* start(d, row, worker)
      case "pushing":
        return yield* push(d, row, worker)
      case "auth_code_ready":
      case "awaiting_registrar":
        return yield* follow(d, row, worker)
      default:
        return Duration.zero
    }
  })

/** What the queue does with a run's outcome: the next run's delay, a retry announced, or the failure. */
export const settle =
  (d: FulfilmentDeps, worker: string) =>
  (row: DeliveryRow, outcome: Outcome<Duration.Duration, RegistrarFailure | LeaseLost>) =>
    Effect.gen(function*() {
      if (outcome._tag === "Done") return yield* d.repo.release(row.order_id, worker, outcome.value)
      const f = outcome.failure
      if (f._tag === "LeaseLost") return
      if (outcome._tag === "Retry") {
        yield* d.transaction(Effect.gen(function*() {
          yield* d.repo.retryLater(row.order_id, worker, f.message, outcome.delay)
          yield* emit(d, row, "transfer.failed", "transfer_retry", {
            reason: f.reason,
            will_retry: true,
            retry_at: new Date(Date.now() + Duration.toMillis(outcome.delay)).toISOString(),
            action_required: "None: the delivery is retried automatically."
          }, f.message)
        }))
        return
      }
      const reason = f.temporary ? "registrar_unavailable" : f.reason
      yield* failFor(d, row, reason, f.message, worker, true).pipe(Effect.catchTag("LeaseLost", () => Effect.void))
    })
