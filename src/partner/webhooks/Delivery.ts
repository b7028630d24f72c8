/**
 * The webhook delivery loop of one replica (`run`, started by Worker.ts).
 *
 * Due deliveries are claimed with `FOR UPDATE SKIP LOCKED` plus a lease, so two replicas never
 * send the same attempt; claiming goes on while slow attempts run (a bounded pool, a cap per
 * endpoint, endpoints served in turn), and one order's events go out in the order they were
 * created (a later one waits while an earlier is pending). Each attempt POSTs the event envelope
 * through Outbound (SSRF-safe, pinned address, no redirects, WEBHOOK_TIMEOUT) with:
 *   X-Service-Signature   hex HMAC-SHA256(secret, raw body)
 *   X-Service-Event-Id, X-Service-Event-Type, X-Service-Timestamp
 *   webhook-id, webhook-timestamp, webhook-signature  (Standard Webhooks, `v1,<base64>`)
 * Any 2xx is success. 410 disables the endpoint. Anything else is retried after 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h (scaled by WEBHOOK_RETRY_BASE / 5 s), then marked failed. Every
 * attempt is recorded; the event itself always stays in GET /events.
 */
import { Clock, Duration, Effect, type Either, Option, Queue, Ref } from "effect"
import { standardWebhookSignature, webhookSignature } from "../../domain/PartnerSigning.js"
import { AppConfig } from "../../platform/Config.js"
import { Outbound, type OutboundError, type OutboundResponse } from "../../platform/Outbound.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { type ClaimedDelivery, WebhookRepo } from "./Repo.js"
import { SEAL_PURPOSE } from "./Secret.js"

/** Retry delays in units of the base (5 s): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_MULTIPLES = [1, 60, 360, 1440, 3600, 7200, 7200] as const

/** Delay before retry number `n` (1-based: after the n-th failed attempt). */
export const retryDelayMs = (failedAttempts: number, baseMs: number): number | undefined => {
  const m = RETRY_MULTIPLES[failedAttempts - 1]
  return m === undefined ? undefined : m * baseMs
}

export const makeDelivery = Effect.gen(function*() {
  const repo = yield* WebhookRepo
  const outbound = yield* Outbound
  const secrets = yield* ServiceSecret
  const config = yield* AppConfig
  const baseMs = Duration.toMillis(config.partner.webhookRetryBase)
  const timeoutMs = Duration.toMillis(config.partner.webhookTimeout)
  const poll = config.partner.webhookPollInterval
  const concurrency = config.partner.webhookConcurrency
  const partnerConcurrency = config.partner.webhookPartnerConcurrency

  const attempt = (d: ClaimedDelivery) =>
    Effect.gen(function*() {
      const attemptNo = d.attempts + 1
      const endpoint = yield* repo.deliveryTarget(d.partner_id, d.environment)
      if (Option.isNone(endpoint) || !endpoint.value.active) {
        return yield* repo.finish(d.id, "cancelled", d.attempts, null, "webhook endpoint disabled or removed")
      }
      const event = yield* repo.event(d.event_id)
      if (Option.isNone(event)) return yield* repo.finish(d.id, "cancelled", d.attempts, null, "event missing")
      const secret = secrets.decrypt(SEAL_PURPOSE, endpoint.value.secret_sealed)
      if (Option.isNone(secret)) {
        return yield* repo.finish(d.id, "failed", d.attempts, null, "endpoint secret unreadable")
      }
      const e = event.value
      const body = JSON.stringify({
        id: e.id,
        type: e.type,
        created_at: e.created_at.toISOString(),
        partner_id: e.partner_id,
        data: e.data
      })
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
        restore(
          outbound.fetch(url, { method: "POST", headers, body, timeoutMs, maxRedirects: 0, maxBodyBytes: 16_384 })
        ).pipe(
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
      if (status !== null && status >= 200 && status <= 299) {
        return yield* repo.finish(d.id, "delivered", attemptNo, status, null)
      }
      if (status === 410) {
        yield* repo.disableEndpoint(d.partner_id, d.environment, "receiver answered 410 Gone")
        yield* Effect.logWarning("webhook endpoint disabled after 410").pipe(
          Effect.annotateLogs({ partner_id: d.partner_id })
        )
        return yield* repo.finish(d.id, "failed", attemptNo, status, "410 Gone: endpoint disabled")
      }
      const delay = retryDelayMs(attemptNo, baseMs)
      if (delay === undefined) {
        return yield* repo.finish(d.id, "failed", attemptNo, status, error)
      }
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
              attributes: {
                "webhook.delivery_id": d.id,
                "webhook.event_id": d.event_id,
                "webhook.attempt": d.attempts + 1
              }
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

  return { run }
})
