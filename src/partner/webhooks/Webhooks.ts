/**
 * Webhook endpoints and their delivery.
 *
 * Registration checks the URL (http(s) only, HTTPS in production) and that it resolves to public
 * addresses only (Outbound.check: no loopback, private, link-local… addresses).
 *
 * Delivery (`run`, every replica's worker): due deliveries are claimed with `FOR UPDATE SKIP
 * LOCKED` plus a lease, so two replicas never send the same attempt; claiming goes on while slow
 * attempts run (a bounded pool, a cap per endpoint, endpoints served in turn), and one order's
 * events go out in the order they were created (a later one waits while an earlier is pending).
 * Each attempt POSTs the event envelope through Outbound (SSRF-safe, pinned address, no redirects,
 * WEBHOOK_TIMEOUT) with:
 *   X-Service-Signature   hex HMAC-SHA256(secret, raw body)
 *   X-Service-Event-Id, X-Service-Event-Type, X-Service-Timestamp
 *   webhook-id, webhook-timestamp, webhook-signature  (Standard Webhooks, `v1,<base64>`)
 * Any 2xx is success. 410 disables the endpoint. Anything else is retried after 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h (scaled by WEBHOOK_RETRY_BASE / 5 s), then marked failed. Every
 * attempt is recorded; the event itself always stays in GET /events.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Context, Duration, Effect, type Either, Layer, Option, Queue, Ref } from "effect"
import { randomBytes } from "node:crypto"
import { standardWebhookSignature, webhookSignature } from "../../domain/PartnerSigning.js"
import { AppConfig } from "../../platform/Config.js"
import { BadRequestError, conflict, notFound } from "../../platform/Errors.js"
import { Outbound, type OutboundError, type OutboundResponse } from "../../platform/Outbound.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import type { PartnerIdentity } from "../Auth.js"
import { Outbox } from "../events/Outbox.js"
import { type ClaimedDelivery, type DeliveryStatus, WebhookRepo } from "./Repo.js"

const SEAL_PURPOSE = "partner-webhook-secret"

/** Retry delays in units of the base (5 s): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_MULTIPLES = [1, 60, 360, 1440, 3600, 7200, 7200] as const
export const MAX_ATTEMPTS = RETRY_MULTIPLES.length + 1

/** Delay before retry number `n` (1-based: after the n-th failed attempt). */
export const retryDelayMs = (failedAttempts: number, baseMs: number): number | undefined => {
  const m = RETRY_MULTIPLES[failedAttempts - 1]
  return m === undefined ? undefined : m * baseMs
}

const validation = (message: string) =>
  new BadRequestError({ code: "validation_error", message: `url: ${message}`, details: [{ path: ["url"], message }] })

const secretValidation = (message: string) =>
  new BadRequestError({ code: "validation_error", message: `secret: ${message}`, details: [{ path: ["secret"], message }] })

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (what its libraries expect). */
const issueSecret = () => `whsec_${randomBytes(32).toString("base64")}`

const isStandardSecret = (secret: string) => {
  const b64 = secret.slice("whsec_".length)
  return /^[A-Za-z0-9+/]+={0,2}$/.test(b64) && b64.length % 4 === 0 && Buffer.from(b64, "base64").length >= 16
}

const make = Effect.gen(function*() {
  const repo = yield* WebhookRepo
  const outbox = yield* Outbox
  const sql = yield* SqlClient.SqlClient
  const outbound = yield* Outbound
  const secrets = yield* ServiceSecret
  const config = yield* AppConfig
  const baseMs = Duration.toMillis(config.partner.webhookRetryBase)
  const timeoutMs = Duration.toMillis(config.partner.webhookTimeout)
  const poll = config.partner.webhookPollInterval
  const concurrency = config.partner.webhookConcurrency
  const partnerConcurrency = config.partner.webhookPartnerConcurrency

  const register = (partner: PartnerIdentity, url: string, chosenSecret: string | undefined) =>
    Effect.gen(function*() {
      let parsed: URL
      try {
        parsed = new URL(url)
      } catch {
        return yield* validation("must be an absolute URL")
      }
      if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return yield* validation("must be an HTTPS URL")
      if (config.production && parsed.protocol !== "https:") return yield* validation("must use HTTPS")
      if (parsed.username || parsed.password) return yield* validation("must not carry credentials")
      yield* outbound.check(parsed.toString()).pipe(
        Effect.mapError((e) => validation(`not allowed (${e.reason}): ${e.message}`))
      )
      if (chosenSecret?.startsWith("whsec_") && !isStandardSecret(chosenSecret)) {
        return yield* secretValidation("a whsec_ secret must be whsec_ followed by base64 of at least 16 bytes")
      }
      const secret = chosenSecret ?? issueSecret()
      const row = yield* repo.upsertEndpoint({
        partnerId: partner.partnerId,
        environment: partner.environment,
        url: parsed.toString(),
        secretSealed: secrets.encrypt(SEAL_PURPOSE, secret)
      })
      return {
        url: row.url,
        active: row.active,
        created_at: row.created_at.toISOString(),
        ...(chosenSecret === undefined ? { secret } : {})
      }
    })

  const attempt = (d: ClaimedDelivery) =>
    Effect.gen(function*() {
      const attemptNo = d.attempts + 1
      const endpoint = yield* repo.endpoint(d.partner_id, d.environment)
      if (Option.isNone(endpoint) || !endpoint.value.active) {
        return yield* repo.finish(d.id, "cancelled", d.attempts, null, "webhook endpoint disabled or removed")
      }
      const event = yield* repo.event(d.event_id)
      if (Option.isNone(event)) return yield* repo.finish(d.id, "cancelled", d.attempts, null, "event missing")
      const secret = secrets.decrypt(SEAL_PURPOSE, endpoint.value.secret_sealed)
      if (Option.isNone(secret)) return yield* repo.finish(d.id, "failed", d.attempts, null, "endpoint secret unreadable")
      const e = event.value
      const body = JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at.toISOString(), partner_id: e.partner_id, data: e.data })
      const now = yield* Clock.currentTimeMillis
      const timestamp = String(Math.floor(now / 1000))
      const headers = {
        "content-type": "application/json",
        "user-agent": "domain-marketplace-webhooks/1",
        "x-service-signature": webhookSignature(secret.value, body),
        "x-service-event-id": e.id,
        "x-service-event-type": e.type,
        "x-service-timestamp": timestamp,
        "webhook-id": e.id,
        "webhook-timestamp": timestamp,
        "webhook-signature": standardWebhookSignature(secret.value, e.id, timestamp, body)
      }
      const url = endpoint.value.url
      const started = new Date(now)
      // The request may be interrupted (shutdown); once an answer is in, its outcome is recorded
      // even during shutdown, so the next process neither repeats nor miscounts the attempt.
      return yield* Effect.uninterruptibleMask((restore) =>
        restore(outbound.fetch(url, { method: "POST", headers, body, timeoutMs, maxRedirects: 0, maxBodyBytes: 16_384 })).pipe(
          Effect.either,
          Effect.flatMap((result) => settle(d, attemptNo, url, started, Date.now() - now, result))
        )
      )
    })

  /** Records an attempt's outcome: delivered, endpoint disabled (410), retry later, or failed for good. */
  const settle = (
    d: ClaimedDelivery,
    attemptNo: number,
    url: string,
    startedAt: Date,
    durationMs: number,
    result: Either.Either<OutboundResponse, OutboundError>
  ) =>
    Effect.gen(function*() {
      const status = result._tag === "Right" ? result.right.status : null
      const error = result._tag === "Left"
        ? `${result.left.reason}: ${result.left.message}`
        : status !== null && (status < 200 || status > 299)
        ? `HTTP ${status}`
        : null
      yield* repo.recordAttempt({ deliveryId: d.id, attempt: attemptNo, url, startedAt, durationMs, status, error })
      if (status !== null && status >= 200 && status <= 299) return yield* repo.finish(d.id, "delivered", attemptNo, status, null)
      if (status === 410) {
        yield* repo.disableEndpoint(d.partner_id, d.environment, "receiver answered 410 Gone")
        yield* Effect.logWarning("webhook endpoint disabled after 410").pipe(Effect.annotateLogs({ partner_id: d.partner_id }))
        return yield* repo.finish(d.id, "failed", attemptNo, status, "410 Gone: endpoint disabled")
      }
      const delay = retryDelayMs(attemptNo, baseMs)
      if (delay === undefined) return yield* repo.finish(d.id, "failed", attemptNo, status, error)
      return yield* repo.retryLater(d.id, attemptNo, delay, status, error)
    })

  /**
   * The delivery loop of this replica (runs until its scope closes). It claims while attempts
   * run: whenever a slot of the pool (WEBHOOK_CONCURRENCY) is free it claims what is due, each
   * endpoint capped at WEBHOOK_PARTNER_CONCURRENCY and served in turn (Repo.claimDue), and
   * forks one fiber per attempt. It waits for an attempt to finish (which may free a slot or
   * unblock the next event of an order) or for the poll interval, whichever comes first. So a
   * hung receiver holds at most its own endpoint's slots, never the others' deliveries.
   */
  const run = Effect.gen(function*() {
    const scope = yield* Effect.scope
    const leaseSeconds = Math.ceil(timeoutMs / 1000) * 3 + 15
    const inFlight = yield* Ref.make(0)
    const wake = yield* Queue.sliding<void>(1)
    const done = Ref.update(inFlight, (n) => n - 1).pipe(Effect.zipRight(Queue.offer(wake, undefined)))
    for (;;) {
      const free = concurrency - (yield* Ref.get(inFlight))
      if (free > 0) {
        const claimed = yield* repo.claimDue(free, partnerConcurrency, leaseSeconds).pipe(
          Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("webhook delivery claim failed", cause), []))
        )
        yield* Ref.update(inFlight, (n) => n + claimed.length)
        for (const d of claimed) {
          yield* attempt(d).pipe(
            Effect.withSpan("webhook.deliver", {
              root: true,
              captureStackTrace: false,
              attributes: { "webhook.delivery_id": d.id, "webhook.event_id": d.event_id, "webhook.attempt": d.attempts + 1 }
            }),
            Effect.catchAllCause((cause) => Effect.logWarning("webhook delivery attempt crashed", cause)),
            Effect.ensuring(done),
            Effect.forkIn(scope)
          )
        }
      }
      yield* Queue.take(wake).pipe(Effect.timeout(poll), Effect.ignore)
    }
  })

  const noEndpoint = notFound("No webhook endpoint is registered for this credential's environment (PUT /api/partner/webhooks)")

  /** The endpoint as the partner sees it (never the secret), with its latest attempt. */
  const show = (partner: PartnerIdentity) =>
    Effect.gen(function*() {
      const endpoint = yield* repo.endpoint(partner.partnerId, partner.environment)
      if (Option.isNone(endpoint)) return yield* noEndpoint
      const e = endpoint.value
      const last = yield* repo.lastAttempt(partner.partnerId, partner.environment)
      const pending = yield* repo.pendingCount(partner.partnerId, partner.environment)
      return {
        url: e.url,
        active: e.active,
        state: e.active ? "active" as const : "disabled" as const,
        disabled_reason: e.active ? null : e.disabled_reason,
        created_at: e.created_at.toISOString(),
        updated_at: e.updated_at.toISOString(),
        pending_deliveries: pending,
        last_attempt: Option.match(last, {
          onNone: () => null,
          onSome: (a) => ({
            at: a.started_at.toISOString(),
            delivery_id: a.delivery_id,
            status: a.status,
            duration_ms: a.duration_ms,
            error: a.error
          })
        })
      }
    })

  /** Removes the endpoint; its pending deliveries are cancelled. */
  const remove = (partner: PartnerIdentity) =>
    Effect.flatMap(repo.deleteEndpoint(partner.partnerId, partner.environment), (deleted) => deleted ? Effect.void : noEndpoint)

  const activeEndpoint = (partner: PartnerIdentity) =>
    Effect.gen(function*() {
      const endpoint = yield* repo.endpoint(partner.partnerId, partner.environment)
      if (Option.isNone(endpoint)) return yield* noEndpoint
      if (!endpoint.value.active) {
        return yield* conflict(
          `The webhook endpoint is disabled (${endpoint.value.disabled_reason ?? "disabled"}); register it again (PUT /api/partner/webhooks) to re-activate it`,
          "webhook_disabled"
        )
      }
      return endpoint.value
    })

  /**
   * A `webhook.test` event, recorded like any other (so it is in GET /events too) and queued for
   * the endpoint in the same transaction: the worker signs and sends it as it sends every event.
   */
  const test = (partner: PartnerIdentity) =>
    Effect.gen(function*() {
      yield* activeEndpoint(partner)
      const now = new Date(yield* Clock.currentTimeMillis)
      const eventId = yield* outbox.append({
        partnerId: partner.partnerId,
        environment: partner.environment,
        type: "webhook.test",
        data: { test: true, message: "A test event sent on request (POST /api/partner/webhooks/test)", requested_at: now.toISOString() }
      }).pipe(sql.withTransaction)
      return { event_id: eventId }
    })

  const deliveries = (
    partner: PartnerIdentity,
    filters: { readonly status?: DeliveryStatus | undefined; readonly eventId?: string | undefined },
    before: string | null,
    limit: number
  ) =>
    Effect.map(repo.deliveries(partner.partnerId, partner.environment, filters, before, limit), (page) => ({
      hasMore: page.hasMore,
      deliveries: page.deliveries.map((d) => ({
        id: d.id,
        event_id: d.event_id,
        event_type: d.event_type,
        status: d.status,
        attempt_count: d.attempts,
        next_attempt_at: d.status === "pending" ? d.next_attempt_at.toISOString() : null,
        last_status: d.last_status,
        last_error: d.last_error,
        created_at: d.created_at.toISOString(),
        finished_at: d.finished_at === null ? null : d.finished_at.toISOString(),
        attempts: page.attempts.filter((a) => a.delivery_id === d.id).map((a) => ({
          attempt: a.attempt,
          started_at: a.started_at.toISOString(),
          status: a.status,
          duration_ms: a.duration_ms,
          error: a.error
        }))
      }))
    }))

  /**
   * Queues one event again, or every event whose delivery failed since a time. An event that
   * already has a pending delivery is left alone (counted in `already_pending`), so repeating
   * the request queues nothing twice.
   */
  const redeliver = (partner: PartnerIdentity, request: { readonly eventId: string } | { readonly since: Date }) =>
    Effect.gen(function*() {
      yield* activeEndpoint(partner)
      let eventIds: ReadonlyArray<string>
      if ("eventId" in request) {
        const owned = yield* repo.ownsEvent(partner.partnerId, partner.environment, request.eventId)
        if (!owned) return yield* notFound("No such event for this credential's partner and environment")
        eventIds = [request.eventId]
      } else {
        eventIds = yield* repo.failedSince(partner.partnerId, partner.environment, request.since)
      }
      let queued = 0
      for (const id of eventIds) {
        if (yield* repo.enqueue(partner.partnerId, partner.environment, id)) queued++
      }
      return { queued, already_pending: eventIds.length - queued }
    })

  return { register, run, show, remove, test, deliveries, redeliver }
})

export class Webhooks extends Context.Tag("app/PartnerWebhooks")<Webhooks, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Webhooks, make).pipe(Layer.provide([WebhookRepo.Live, Outbox.Live]))
}
