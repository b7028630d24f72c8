/**
 * Fulfilment: the delivery of a sold name, from the paid order to TRANSFER_COMPLETED, with no
 * operator (docs/fulfilment.md).
 *
 * A delivery is a row of `order_deliveries` and, when ready, an item of the one durable-queue
 * engine (src/platform/jobs/DurableQueue.ts): claimed with `FOR UPDATE SKIP LOCKED` under a lease, so
 * one worker of one process runs an order's delivery at a time; each run does the next step:
 *
 *   pending ──(transfer.requested; unlock; order.transfer_started)──▶ pushing ──push──▶ awaiting_registrar ──▶ completed
 *           └──(auth code read, sealed; transfer.auth_code_ready)──▶ auth_code_ready ───────┘ (transfer.pending)
 *   any step ──registrar refuses──▶ failed (transfer.failed, will_retry false; operators retry or mark delivered)
 *
 * The contract a reader keeps: a push is asked of the registrar at most once per delivery run
 * from `pending`. Before pushing, the registrar is asked where the name's transfer stands, so a
 * run resumed after a crash (between the push and its record) never pushes again; and every
 * write of a step, with its events, is one transaction guarded by the lease, so a worker that
 * lost its lease writes nothing. A temporary registrar failure is retried with back-off
 * (DELIVERY_RETRY_BASE × 1, 4, 16…) up to DELIVERY_MAX_ATTEMPTS, each announced by
 * `transfer.failed` with `will_retry: true`. The auth code is stored sealed (SERVICE_SECRET,
 * AES-GCM), handed out once through a signed short-lived link, and never logged or put in an event.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Duration, Effect, Layer, Option, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as Os from "node:os"
import type { PartnerIdentity } from "../partner/Auth.js"
import { Outbox } from "../partner/events/Outbox.js"
import type { OrderDetail } from "../partner/orders/Api.js"
import type { DeliveryView } from "../partner/orders/Deliveries.js"
import { Orders } from "../partner/orders/Orders.js"
import { AppConfig } from "../platform/Config.js"
import { transactionOf } from "../platform/db/SqlTransaction.js"
import { Backoff, type Outcome, runWorkers } from "../platform/jobs/DurableQueue.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { DeliveryAlreadyStarted, DeliveryNotFound, DeliveryNotRetryable, TransferCodeUnavailable } from "./Errors.js"
import { DeliveryRegistrar, RegistrarFailure } from "./Registrar.js"
import { DeliveryRepo, type DeliveryRow, type StepPatch } from "./Repo.js"
import { FulfilmentConfig } from "./Settings.js"

const CODE_PURPOSE = "transfer-auth-code"
const SEAL_PURPOSE = "transfer-auth-code-at-rest"
const ACTOR = "system:fulfilment"

/** What the partner must do after a delivery failed for good, by reason. */
export const actionRequired = (reason: string): string =>
  reason === "registrar_lock_60_days"
    ? "The registry refuses transfers within 60 days of the name's registration or last transfer. Nothing to do now: an operator will retry after the lock ends or refund the order; contact support to choose."
    : reason === "order_cancelled"
    ? "None: the order was refunded or cancelled."
    : "An operator reviews the delivery and retries it or refunds the order; contact support for details."

/** The signed one-time link's payload: order, nonce, expiry (ms). */
interface CodeToken {
  readonly o: string
  readonly p: string
  readonly n: string
  readonly x: number
}

export interface DeliveryChoice {
  readonly method: "push" | "auth_code"
  readonly target_account?: string | undefined
}

export const viewOf = (row: DeliveryRow): DeliveryView => ({
  state: row.state,
  method: row.method,
  target: row.target,
  attempts: row.attempts,
  last_error: row.last_error,
  updated_at: row.updated_at
})

/** A delivery as operators list it. */
export const operatorViewOf = (row: DeliveryRow) => ({
  order_id: row.order_id,
  partner_id: row.partner_id,
  environment: row.environment,
  domain: row.domain,
  state: row.state,
  method: row.method,
  target: row.target,
  attempts: row.attempts,
  last_error: row.last_error,
  registrar_state: row.registrar_state,
  started_at: row.started_at?.toISOString() ?? null,
  updated_at: row.updated_at.toISOString()
})

/** A run lost its lease mid-step: nothing was written; the next holder carries on. */
class LeaseLost {
  readonly _tag = "LeaseLost"
}

const make = Effect.gen(function*() {
  const transaction = transactionOf(yield* SqlClient.SqlClient)
  const repo = yield* DeliveryRepo
  const registrar = yield* DeliveryRegistrar
  const orders = yield* Orders
  const outbox = yield* Outbox
  const secrets = yield* ServiceSecret
  const settings = yield* FulfilmentConfig
  const config = yield* AppConfig
  const poll = Option.getOrElse(
    settings.statusPoll,
    () => registrar.mode === "sandbox" ? Duration.seconds(1) : Duration.minutes(5)
  )
  const backoff = Backoff.exponential(settings.retryBase, 4)

  const orderOf = (orderId: string) => Effect.orDie(orders.detail(orderId))
  const eventOrder = (o: typeof OrderDetail.Type) => ({
    public_id: o.public_id,
    domain: o.domain,
    status: o.status,
    sale_price_cents: o.sale_price_cents,
    currency: o.currency
  })

  /** Appends a transfer.* event carrying the order as it is now, and its timeline step. */
  const emit = (row: DeliveryRow, type: string, step: string, data: Record<string, unknown>, note?: string) =>
    Effect.gen(function*() {
      const order = yield* orderOf(row.order_id)
      const eventId = yield* outbox.append({
        partnerId: row.partner_id,
        environment: row.environment,
        type,
        data: { order: eventOrder(order), ...data }
      })
      yield* orders.recordTransferStep(row.order_id, step, { actor: ACTOR, eventId, note: note ?? null })
      return eventId
    })

  /** One step's writes and events, in one transaction, under the lease. */
  const commitStep = <A, E, R>(row: DeliveryRow, worker: string, patch: StepPatch, then: Effect.Effect<A, E, R>) =>
    transaction(Effect.gen(function*() {
      if (!(yield* repo.step(row.order_id, worker, patch))) return yield* Effect.fail(new LeaseLost())
      return yield* then
    }))

  /** The lifecycle's move, unless an operator already made it. */
  const moveIfAt = (orderId: string, from: ReadonlyArray<string>, action: "start_transfer" | "confirm_delivery") =>
    Effect.gen(function*() {
      const order = yield* orderOf(orderId)
      if (from.includes(order.status)) yield* Effect.orDie(orders.move(orderId, action, { actor: ACTOR }))
    })

  const complete = (row: DeliveryRow, worker: string) =>
    commitStep(
      row,
      worker,
      { state: "completed", registrarState: "completed", finished: true },
      Effect.gen(function*() {
        yield* moveIfAt(row.order_id, ["PAID", "EXTERNALLY_PAID"], "start_transfer")
        yield* moveIfAt(row.order_id, ["TRANSFER_IN_PROGRESS"], "confirm_delivery")
        yield* emit(row, "transfer.completed", "transfer_completed", { transfer: { method: row.method } })
      })
    )

  const failFor = (row: DeliveryRow, reason: string, message: string, worker: string | null, counted: boolean) =>
    transaction(Effect.gen(function*() {
      if (!(yield* repo.fail(row.order_id, worker, message, counted))) return yield* Effect.fail(new LeaseLost())
      yield* emit(row, "transfer.failed", "transfer_failed", {
        reason,
        will_retry: false,
        action_required: actionRequired(reason)
      }, message)
    }))

  /** Where the registrar says the transfer stands: pending (announced once), completed, failed. */
  const follow = (row: DeliveryRow, worker: string) =>
    Effect.gen(function*() {
      const st = yield* registrar.status(row.domain)
      if (st.status === "completed") {
        if (row.state !== "awaiting_registrar") {
          yield* commitStep(
            row,
            worker,
            { state: "awaiting_registrar", registrarState: "completed" },
            emit(row, "transfer.pending", "transfer_pending", { registrar_state: "completed" })
          )
        }
        yield* complete(row, worker)
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
          row,
          worker,
          { state: "awaiting_registrar", registrarState: "pending" },
          emit(row, "transfer.pending", "transfer_pending", { registrar_state: "pending" })
        )
      }
      return poll
    })

  const push = (row: DeliveryRow, worker: string) =>
    Effect.gen(function*() {
      // Asked first: a run resumed after a crash between the push and its record never pushes again.
      const before = yield* registrar.status(row.domain)
      if (before.status === "none") yield* registrar.push(row.domain, row.target ?? "")
      return yield* follow({ ...row, state: "pushing" }, worker)
    })

  const start = (row: DeliveryRow, worker: string) =>
    Effect.gen(function*() {
      const method = row.method ?? (row.target ? "push" : "auth_code")
      if (row.requested_at === null) {
        yield* commitStep(
          row,
          worker,
          { requested: true, method },
          emit(row, "transfer.requested", "transfer_requested", { transfer: { method, target: row.target } })
        )
      }
      yield* registrar.unlock(row.domain)
      if (method === "push") {
        yield* commitStep(
          row,
          worker,
          { state: "pushing" },
          moveIfAt(row.order_id, ["PAID", "EXTERNALLY_PAID"], "start_transfer")
        )
        return yield* push({ ...row, method, state: "pushing" }, worker)
      }
      const code = yield* registrar.authCode(row.domain)
      const nonce = randomBytes(12).toString("base64url")
      const expiresAt = new Date(Date.now() + Duration.toMillis(settings.codeTtl))
      const token = secrets.sign(
        CODE_PURPOSE,
        { o: row.order_id, p: row.partner_id, n: nonce, x: expiresAt.getTime() } satisfies CodeToken
      )
      const retrieveUrl = `${config.baseUrl}/api/partner/v1/orders/${row.order_id}/delivery/auth-code?token=${token}`
      yield* commitStep(
        row,
        worker,
        { state: "auth_code_ready", code: { sealed: secrets.encrypt(SEAL_PURPOSE, code), nonce, expiresAt } },
        Effect.zipRight(
          moveIfAt(row.order_id, ["PAID", "EXTERNALLY_PAID"], "start_transfer"),
          emit(row, "transfer.auth_code_ready", "auth_code_ready", {
            retrieve_url: retrieveUrl,
            expires_at: expiresAt.toISOString()
          })
        )
      )
      return poll
    })

  /** One run of a claimed delivery: the next step; the delay before the next run. */
  const runStep = (row: DeliveryRow, worker: string): Effect.Effect<Duration.Duration, RegistrarFailure | LeaseLost> =>
    Effect.gen(function*() {
      const order = yield* orderOf(row.order_id)
      if (order.status === "REFUNDED" || order.status === "CANCELLED") {
        yield* failFor(row, "order_cancelled", `The order is ${order.status}`, worker, false)
        return Duration.zero
      }
      if (order.status === "TRANSFER_COMPLETED" || order.status === "SETTLED") {
        // Delivered by hand: the delivery agrees.
        yield* complete(row, worker)
        return Duration.zero
      }
      if (order.status === "MANUAL_REVIEW") return poll
      switch (row.state) {
        case "pending":
          return yield* start(row, worker)
        case "pushing":
          return yield* push(row, worker)
        case "auth_code_ready":
        case "awaiting_registrar":
          return yield* follow(row, worker)
        default:
          return Duration.zero
      }
    })

  const settle =
    (worker: string) => (row: DeliveryRow, outcome: Outcome<Duration.Duration, RegistrarFailure | LeaseLost>) =>
      Effect.gen(function*() {
        if (outcome._tag === "Done") return yield* repo.release(row.order_id, worker, outcome.value)
        const f = outcome.failure
        if (f._tag === "LeaseLost") return
        if (outcome._tag === "Retry") {
          yield* transaction(Effect.gen(function*() {
            yield* repo.retryLater(row.order_id, worker, f.message, outcome.delay)
            yield* emit(row, "transfer.failed", "transfer_retry", {
              reason: f.reason,
              will_retry: true,
              retry_at: new Date(Date.now() + Duration.toMillis(outcome.delay)).toISOString(),
              action_required: "None: the delivery is retried automatically."
            }, f.message)
          }))
          return
        }
        const reason = f.temporary ? "registrar_unavailable" : f.reason
        yield* failFor(row, reason, f.message, worker, true).pipe(Effect.catchTag("LeaseLost", () => Effect.void))
      })

  /** Starts this process's delivery workers in the current scope. */
  const work = (options?: { readonly pollInterval?: Duration.DurationInput }) =>
    Effect.gen(function*() {
      const worker = `${Os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`
      return yield* runWorkers<DeliveryRow, Duration.Duration, RegistrarFailure | LeaseLost>({
        name: "delivery",
        store: {
          claim: (limit) => repo.claim(worker, limit, settings.lease),
          renew: (row) => repo.renew(row.order_id, worker, settings.lease),
          settle: settle(worker)
        },
        handle: (row) => Effect.interruptible(runStep(row, worker)),
        retryAfter: (row, f) =>
          f._tag === "RegistrarFailure" && f.temporary && row.attempts + 1 < settings.maxAttempts
            ? Option.some(backoff(row.attempts + 1))
            : Option.none(),
        onDefect: () =>
          Option.some(
            new RegistrarFailure({ temporary: true, reason: "internal", message: "unexpected error in the delivery" })
          ),
        lease: settings.lease,
        concurrency: settings.concurrency,
        pollInterval: options?.pollInterval ?? Duration.seconds(1),
        id: (row) => row.order_id,
        span: (row) => ({
          name: "fulfilment.delivery",
          attributes: { "order.id": row.order_id, "delivery.state": row.state, "delivery.attempts": row.attempts }
        })
      })
    })

  return {
    work: work as (
      options?: { readonly pollInterval?: Duration.DurationInput }
    ) => Effect.Effect<{ readonly wake: Effect.Effect<void> }, never, Scope.Scope>,

    /** The partner's choice of delivery, until the delivery starts (409 after); the order detail. */
    choose: (partner: PartnerIdentity, publicId: string, choice: DeliveryChoice) =>
      Effect.gen(function*() {
        const order = yield* orders.detail(publicId, partner)
        const chosen = yield* repo.choose({
          orderId: order.public_id,
          partnerId: partner.partnerId,
          environment: partner.environment,
          domain: order.domain,
          method: choice.method,
          target: choice.method === "push" ? choice.target_account ?? null : null
        })
        if (Option.isNone(chosen)) {
          return yield* new DeliveryAlreadyStarted({
            message:
              `The delivery of ${publicId} has started (${order.transfer.state}); its method can no longer change`
          })
        }
        return yield* orders.detail(publicId, partner)
      }),

    /** The auth code behind a retrieve_url, once, to the partner it was issued to. */
    retrieveCode: (partner: PartnerIdentity, publicId: string, token: string) =>
      Effect.gen(function*() {
        const unavailable = new TransferCodeUnavailable({
          message: "This auth code link is invalid, expired or was already used"
        })
        const t = secrets.verify<CodeToken>(CODE_PURPOSE, token)
        if (Option.isNone(t) || t.value.o !== publicId || t.value.p !== partner.partnerId || t.value.x <= Date.now()) {
          return yield* unavailable
        }
        const taken = yield* repo.takeCode(publicId, t.value.n)
        if (Option.isNone(taken)) return yield* unavailable
        const code = secrets.decrypt(SEAL_PURPOSE, taken.value.auth_code_sealed)
        if (Option.isNone(code)) return yield* unavailable
        return { order_id: publicId, domain: taken.value.domain, auth_code: code.value }
      }),

    list: (state: DeliveryRow["state"] | undefined, limit: number) =>
      Effect.map(repo.list(state, limit), (rows) => rows.map(operatorViewOf)),

    /** An operator's retry of a failed (or stuck) delivery: from the start, recorded in the timeline. */
    retry: (publicId: string, actor: string, note?: string) =>
      transaction(Effect.gen(function*() {
        const row = yield* repo.byOrder(publicId)
        if (Option.isNone(row)) return yield* DeliveryNotFound.of(publicId)
        const restarted = yield* repo.restart(publicId)
        if (Option.isNone(restarted)) {
          return yield* new DeliveryNotRetryable({ message: `The delivery of ${publicId} completed` })
        }
        yield* orders.recordTransferStep(publicId, "delivery_retried", { actor, note: note ?? null })
        return operatorViewOf(restarted.value)
      })),

    /** An operator's confirmation that the name was delivered by hand: the order moves on. */
    markDelivered: (publicId: string, actor: string, note?: string) =>
      transaction(Effect.gen(function*() {
        const order = yield* orders.detail(publicId)
        if (order.status === "PAID" || order.status === "EXTERNALLY_PAID") {
          yield* orders.move(publicId, "start_transfer", { actor, note })
        }
        yield* orders.move(publicId, "confirm_delivery", { actor, note })
        yield* repo.markCompleted(publicId)
        yield* orders.recordTransferStep(publicId, "delivered_by_operator", { actor, note: note ?? null })
        return yield* orders.detail(publicId)
      }))
  }
})

export class Fulfilment extends Context.Tag("app/Fulfilment")<Fulfilment, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Fulfilment, make)
}
