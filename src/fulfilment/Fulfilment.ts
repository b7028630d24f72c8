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
 *
 * This file is the service (its workers, the partner's choice and code retrieval, the operator's
 * retry and hand delivery); the steps of a run are Steps.ts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect, Option, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as Os from "node:os"
import type { PartnerIdentity } from "../partner/Auth.js"
import { Outbox } from "../partner/events/Outbox.js"
import type { DeliveryView } from "../partner/orders/Deliveries.js"
import { Orders } from "../partner/orders/Orders.js"
import type { Advanced } from "../partner/sandbox/Deliveries.js"
import { AppConfig } from "../platform/Config.js"
import { transactionOf } from "../platform/db/SqlTransaction.js"
import { Backoff, type QueueWorkers, runClaimed, runWorkers } from "../platform/jobs/DurableQueue.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { DeliveryAlreadyStarted, DeliveryNotFound, DeliveryNotRetryable, TransferCodeUnavailable } from "./Errors.js"
import { DeliveryRegistrars, RegistrarFailure } from "./Registrar.js"
import { DeliveryRepo, type DeliveryRow } from "./Repo.js"
import { FulfilmentConfig } from "./Settings.js"
import {
  CODE_PURPOSE,
  type CodeToken,
  type FulfilmentDeps,
  type LeaseLost,
  runStep,
  SEAL_PURPOSE,
  settle
} from "./Steps.js"

export { actionRequired } from "./Steps.js"

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

/** The delivery queue as this worker runs it on the durable-queue engine. */
const queueOf = (
  d: FulfilmentDeps,
  backoff: (attempt: number) => Duration.Duration,
  worker: string,
  pollInterval: Duration.DurationInput = Duration.seconds(1)
): QueueWorkers<DeliveryRow, Duration.Duration, RegistrarFailure | LeaseLost> => ({
  name: "delivery",
  store: {
    claim: (limit) => d.repo.claim(worker, limit, d.settings.lease),
    renew: (row) => d.repo.renew(row.order_id, worker, d.settings.lease),
    settle: settle(d, worker)
  },
  handle: (row) => Effect.interruptible(runStep(d, row, worker)),
  retryAfter: (row, f) =>
    f._tag === "RegistrarFailure" && f.temporary && row.attempts + 1 < d.settings.maxAttempts
      ? Option.some(backoff(row.attempts + 1))
      : Option.none(),
  onDefect: () =>
    Option.some(
      new RegistrarFailure({ temporary: true, reason: "internal", message: "unexpected error in the delivery" })
    ),
  lease: d.settings.lease,
  concurrency: d.settings.concurrency,
  pollInterval,
  id: (row) => row.order_id,
  span: (row) => ({
    name: "fulfilment.delivery",
    attributes: { "order.id": row.order_id, "delivery.state": row.state, "delivery.attempts": row.attempts }
  })
})

const workerId = (kind: string) => `${kind}:${Os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`

/** Starts this process's delivery workers in the current scope. */
const work = (
  d: FulfilmentDeps,
  backoff: (attempt: number) => Duration.Duration,
  options?: { readonly pollInterval?: Duration.DurationInput }
) => runWorkers(queueOf(d, backoff, workerId("worker"), options?.pollInterval))

/**
 * The sandbox's `advance` on a delivery: its next step now, whatever its schedule or DELIVERY_AUTOSTART,
 * run as a worker runs it (`runClaimed`), so it writes and announces exactly what a worker would;
 * the sandbox registrar completes the transfers asked so far at once. While a worker holds the
 * delivery, that worker is running the step, and this one does nothing more.
 */
const advance = (
  d: FulfilmentDeps,
  backoff: (attempt: number) => Duration.Duration,
  publicId: string
): Effect.Effect<Advanced> =>
  Effect.gen(function*() {
    const found = yield* d.repo.byOrder(publicId)
    if (Option.isNone(found) || found.value.state === "completed") return { _tag: "NoDelivery" }
    const row = found.value
    if (row.state === "failed") return { _tag: "Failed", lastError: row.last_error }
    if (row.environment === "sandbox") yield* d.registrars.hurry(row.domain)
    const worker = workerId("sandbox-advance")
    const claimed = yield* d.repo.claimOne(publicId, worker, d.settings.lease)
    if (Option.isSome(claimed)) yield* runClaimed(queueOf(d, backoff, worker), claimed.value)
    return { _tag: "Stepped" }
  })

/** The partner's choice of delivery, until the delivery starts (409 after); the order detail. */
const choose = (d: FulfilmentDeps, partner: PartnerIdentity, publicId: string, choice: DeliveryChoice) =>
  Effect.gen(function*() {
    const order = yield* d.orders.detail(publicId, partner)
    const chosen = yield* d.repo.choose({
      orderId: order.public_id,
      partnerId: partner.partnerId,
      environment: partner.environment,
      domain: order.domain,
      method: choice.method,
      target: choice.method === "push" ? choice.target_account ?? null : null
    })
    if (Option.isNone(chosen)) {
      return yield* new DeliveryAlreadyStarted({
        message: `The delivery of ${publicId} has started (${order.transfer.state}); its method can no longer change`
      })
    }
    return yield* d.orders.detail(publicId, partner)
  })

/** The auth code behind a retrieve_url, once, to the partner it was issued to. */
const retrieveCode = (d: FulfilmentDeps, partner: PartnerIdentity, publicId: string, token: string) =>
  Effect.gen(function*() {
    const unavailable = new TransferCodeUnavailable({
      message: "This auth code link is invalid, expired or was already used"
    })
    const t = d.secrets.verify<CodeToken>(CODE_PURPOSE, token)
    if (Option.isNone(t) || t.value.o !== publicId || t.value.p !== partner.partnerId || t.value.x <= Date.now()) {
      return yield* unavailable
    }
    const taken = yield* d.repo.takeCode(publicId, t.value.n)
    if (Option.isNone(taken)) return yield* unavailable
    const code = d.secrets.decrypt(SEAL_PURPOSE, taken.value.auth_code_sealed)
    if (Option.isNone(code)) return yield* unavailable
    return { order_id: publicId, domain: taken.value.domain, auth_code: code.value }
  })

/** An operator's retry of a failed (or stuck) delivery: from the start, recorded in the timeline. */
const retry = (d: FulfilmentDeps, publicId: string, actor: string, note?: string) =>
  d.transaction(Effect.gen(function*() {
    const row = yield* d.repo.byOrder(publicId)
    if (Option.isNone(row)) return yield* DeliveryNotFound.of(publicId)
    const restarted = yield* d.repo.restart(publicId)
    if (Option.isNone(restarted)) {
      return yield* new DeliveryNotRetryable({ message: `The delivery of ${publicId} completed` })
    }
    yield* d.orders.recordTransferStep(publicId, "delivery_retried", { actor, note: note ?? null })
    return operatorViewOf(restarted.value)
  }))

/** An operator's confirmation that the name was delivered by hand: the order moves on. */
const markDelivered = (d: FulfilmentDeps, publicId: string, actor: string, note?: string) =>
  d.transaction(Effect.gen(function*() {
    const order = yield* d.orders.detail(publicId)
    if (order.status === "PAID" || order.status === "EXTERNALLY_PAID") {
      yield* d.orders.move(publicId, "start_transfer", { actor, note })
    }
    yield* d.orders.move(publicId, "confirm_delivery", { actor, note })
    yield* d.repo.markCompleted(publicId)
    yield* d.orders.recordTransferStep(publicId, "delivered_by_operator", { actor, note: note ?? null })
    return yield* d.orders.detail(publicId)
  }))

const make = Effect.gen(function*() {
  const registrars = yield* DeliveryRegistrars
  const settings = yield* FulfilmentConfig
  const d: FulfilmentDeps = {
    transaction: transactionOf(yield* SqlClient.SqlClient),
    repo: yield* DeliveryRepo,
    registrars,
    orders: yield* Orders,
    outbox: yield* Outbox,
    secrets: yield* ServiceSecret,
    settings,
    baseUrl: (yield* AppConfig).baseUrl,
    poll: (environment) =>
      Option.getOrElse(
        settings.statusPoll,
        () => registrars.of(environment).mode === "sandbox" ? Duration.seconds(1) : Duration.minutes(5)
      )
  }
  const backoff = Backoff.exponential(settings.retryBase, 4)
  return {
    work: ((options?: { readonly pollInterval?: Duration.DurationInput }) => work(d, backoff, options)) as (
      options?: { readonly pollInterval?: Duration.DurationInput }
    ) => Effect.Effect<{ readonly wake: Effect.Effect<void> }, never, Scope.Scope>,
    choose: (partner: PartnerIdentity, publicId: string, choice: DeliveryChoice) =>
      choose(d, partner, publicId, choice),
    retrieveCode: (partner: PartnerIdentity, publicId: string, token: string) =>
      retrieveCode(d, partner, publicId, token),
    list: (state: DeliveryRow["state"] | undefined, limit: number) =>
      Effect.map(d.repo.list(state, limit), (rows) => rows.map(operatorViewOf)),
    retry: (publicId: string, actor: string, note?: string) => retry(d, publicId, actor, note),
    markDelivered: (publicId: string, actor: string, note?: string) => markDelivered(d, publicId, actor, note),
    advance: (publicId: string) => advance(d, backoff, publicId)
  }
})

export class Fulfilment extends Effect.Service<Fulfilment>()("app/Fulfilment", { effect: make }) {
  /** Kept for the existing wiring (src/fulfilment/Layer.ts). */
  static readonly Live = Fulfilment.Default
}
