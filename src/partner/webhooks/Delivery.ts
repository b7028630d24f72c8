/**
 * The webhook deliveries of one replica (`run`, started by Worker.ts), on the durable-queue engine
 * of platform/jobs/DurableQueue.ts (the jobs' engine: one claim loop, lease, retry and back-off). This
 * file is what is particular to a delivery: the claim (Repo.claimDue: a cap per endpoint, endpoints
 * served in turn, one order's events in the order they were created), the attempt, and what its
 * outcome writes.
 *
 * Due deliveries are claimed with `FOR UPDATE SKIP LOCKED` plus a lease, so two replicas never
 * send the same attempt; claiming goes on while slow attempts run (WEBHOOK_CONCURRENCY slots).
 * The lease outlasts any attempt (three times WEBHOOK_TIMEOUT plus 15 s), so it is not renewed;
 * an attempt interrupted by a shutdown or crash is sent again once it lapses, uncounted. Each attempt POSTs the event envelope
 * through Outbound (SSRF-safe, pinned address, no redirects, WEBHOOK_TIMEOUT) with:
 *   X-Service-Signature   hex HMAC-SHA256(secret, raw body)
 *   X-Service-Event-Id, X-Service-Event-Type, X-Service-Timestamp
 *   webhook-id, webhook-timestamp, webhook-signature  (Standard Webhooks, `v1,<base64>`)
 * Any 2xx is success. 410 disables the endpoint. Anything else is retried after 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h (scaled by WEBHOOK_RETRY_BASE / 5 s), then marked failed. Every
 * attempt is recorded, with the first RESPONSE_BODY_LIMIT bytes of the receiver's answer; the
 * event itself always stays in GET /events.
 */
import { Clock, Data, Duration, Effect, Option, type Scope } from "effect"
import { standardWebhookSignature, webhookSignature } from "../../domain/PartnerSigning.js"
import { Backoff, type Outcome, runWorkers } from "../../platform/jobs/DurableQueue.js"
import { Outbound } from "../../platform/outbound/Outbound.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { Outbox } from "../events/Outbox.js"
import { PartnerConfig } from "../Settings.js"
import { type ClaimedDelivery, type ClaimPool, WebhookRepo } from "./Repo.js"
import { SEAL_PURPOSE } from "./Secret.js"

/** Retry delays in units of the base (5 s): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_MULTIPLES = [1, 60, 360, 1440, 3600, 7200, 7200] as const

/**
 * The breaker: after this many attempts in a row without an answer (timeouts, refused or reset
 * connections) an endpoint's circuit opens for one WEBHOOK_TIMEOUT, doubling on every further
 * silent probe up to BREAKER_MAX_OPEN; then it is probed one delivery at a time, in the probe pool
 * (a quarter of WEBHOOK_CONCURRENCY, at least 2), never in the pool healthy endpoints are served
 * from. Any answer (even a 503) closes it. So however many receivers hang, each holds the shared
 * pool for at most its first few attempts, one WEBHOOK_TIMEOUT each.
 */
export const BREAKER_THRESHOLD = 3
const BREAKER_MAX_OPEN_MS = 5 * 60_000

/**
 * How much of a receiver's answer is read and kept with its attempt (the delivery log shows it).
 * Outbound stops reading there and closes the connection, so a receiver answering megabytes, or
 * trickling its body, costs one small buffer and never more than WEBHOOK_TIMEOUT.
 */
export const RESPONSE_BODY_LIMIT = 4096

/**
 * The receiver's answer as text: UTF-8 with invalid bytes replaced (a receiver may answer
 * anything). When the answer was cut, a character split by the cut is dropped rather than shown
 * as a replacement (`stream`). NUL becomes U+FFFD too: PostgreSQL text cannot hold it, and one
 * such byte must not lose the whole attempt row.
 */
export const answerText = (body: Uint8Array, truncated: boolean): string =>
  new TextDecoder("utf-8", { fatal: false }).decode(body, { stream: truncated }).replaceAll("\u0000", "\uFFFD")

/** One request sent (or tried): a row of the attempt log. */
interface Sent {
  readonly attempt: number
  readonly url: string
  readonly startedAt: Date
  readonly durationMs: number
  readonly status: number | null
  readonly error: string | null
  /** The answer's first RESPONSE_BODY_LIMIT bytes as text; null when none was read (timeout, reset…). */
  readonly responseBody: string | null
  /** The answer was longer than RESPONSE_BODY_LIMIT: `responseBody` is its beginning. */
  readonly responseBodyTruncated: boolean
}

/** An attempt that did not deliver: retried, unless `final` says how it ended. */
class AttemptFailed extends Data.TaggedError("AttemptFailed")<{
  /** Attempts counted so far (a cancelled or unsendable delivery counts none). */
  readonly attempts: number
  readonly sent: Sent | undefined
  readonly lastStatus: number | null
  readonly error: string
  readonly final?: "failed" | "cancelled"
  /** The endpoint is disabled, for this reason (410 Gone). */
  readonly disable?: string
}> {}

export const makeDelivery = Effect.gen(function*() {
  const repo = yield* WebhookRepo
  const outbox = yield* Outbox
  const outbound = yield* Outbound
  const secrets = yield* ServiceSecret
  const partnerSettings = yield* PartnerConfig
  const retryDelay = Backoff.steps(RETRY_MULTIPLES, partnerSettings.webhookRetryBase)
  const timeoutMs = Duration.toMillis(partnerSettings.webhookTimeout)
  const leaseSeconds = Math.ceil(timeoutMs / 1000) * 3 + 15

  /**
   * One attempt: delivered (its answer), or why not. Only the POST may be interrupted (shutdown):
   * the attempt is then sent again after the lease, uncounted; once an answer is in, its outcome
   * is settled even during shutdown, so the next process neither repeats nor miscounts it.
   */
  const attempt = (d: ClaimedDelivery): Effect.Effect<Sent, AttemptFailed> =>
    Effect.gen(function*() {
      const attemptNo = d.attempts + 1
      const notSent = (final: "failed" | "cancelled", error: string) =>
        new AttemptFailed({ attempts: d.attempts, sent: undefined, lastStatus: null, error, final })
      const endpoint = yield* repo.deliveryTarget(d.partner_id, d.environment)
      if (Option.isNone(endpoint) || !endpoint.value.active) {
        return yield* notSent("cancelled", "webhook endpoint disabled or removed")
      }
      const event = yield* outbox.byId(d.event_id)
      if (Option.isNone(event)) return yield* notSent("cancelled", "event missing")
      const secret = secrets.decrypt(SEAL_PURPOSE, endpoint.value.secret_sealed)
      if (Option.isNone(secret)) return yield* notSent("failed", "endpoint secret unreadable")
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
      const result = yield* Effect.either(Effect.interruptible(
        outbound.fetch(url, {
          method: "POST",
          headers,
          body,
          timeoutMs,
          maxRedirects: 0,
          maxBodyBytes: RESPONSE_BODY_LIMIT
        })
      ))
      const status = result._tag === "Right" ? result.right.status : null
      const error = result._tag === "Left"
        ? `${result.left.reason}: ${result.left.message}`
        : status !== null && (status < 200 || status > 299)
        ? `HTTP ${status}`
        : null
      const sent: Sent = {
        attempt: attemptNo,
        url,
        startedAt: new Date(now),
        durationMs: Date.now() - now,
        status,
        error,
        responseBody: result._tag === "Right" ? answerText(result.right.body, result.right.truncated) : null,
        responseBodyTruncated: result._tag === "Right" && result.right.truncated
      }
      if (status !== null && status >= 200 && status <= 299) return sent
      return yield* status === 410
        ? new AttemptFailed({
          attempts: attemptNo,
          sent,
          lastStatus: status,
          error: "410 Gone: endpoint disabled",
          final: "failed",
          disable: "receiver answered 410 Gone"
        })
        : new AttemptFailed({ attempts: attemptNo, sent, lastStatus: status, error: error ?? "unexpected answer" })
    })

  const breaker = { threshold: BREAKER_THRESHOLD, baseMs: timeoutMs, maxMs: BREAKER_MAX_OPEN_MS }

  /** The breaker's view of an attempt: answered (any status) or silent; nothing when none was sent. */
  const recordHealth = (d: ClaimedDelivery, sent: Sent | undefined) =>
    sent === undefined
      ? Effect.void
      : sent.status === null
      ? repo.endpointSilent(d.partner_id, d.environment, breaker)
      : d.endpoint_failures > 0
      ? repo.endpointAnswered(d.partner_id, d.environment)
      : Effect.void

  /** Records an attempt's outcome: delivered, endpoint disabled (410), retry later, or failed for good. */
  const settle = (d: ClaimedDelivery, outcome: Outcome<Sent, AttemptFailed>) =>
    Effect.gen(function*() {
      yield* recordHealth(d, outcome._tag === "Done" ? outcome.value : outcome.failure.sent)
      if (outcome._tag === "Done") {
        const sent = outcome.value
        yield* repo.recordAttempt({ deliveryId: d.id, ...sent })
        return yield* repo.finish(d.id, "delivered", sent.attempt, sent.status, null)
      }
      const f = outcome.failure
      if (f.sent !== undefined) yield* repo.recordAttempt({ deliveryId: d.id, ...f.sent })
      if (outcome._tag === "Retry") {
        return yield* repo.retryLater(d.id, f.attempts, Duration.toMillis(outcome.delay), f.lastStatus, f.error)
      }
      if (f.disable !== undefined) {
        yield* repo.disableEndpoint(d.partner_id, d.environment, f.disable)
        yield* Effect.logWarning("webhook endpoint disabled after 410").pipe(
          Effect.annotateLogs({ partner_id: d.partner_id })
        )
      }
      return yield* repo.finish(d.id, f.final ?? "failed", f.attempts, f.lastStatus, f.error)
    })

  /**
   * One pool of this replica's delivery workers: `healthy` serves endpoints that answer,
   * WEBHOOK_CONCURRENCY attempts at once, each endpoint capped at WEBHOOK_PARTNER_CONCURRENCY and
   * served in turn (Repo.claimDue); `probe` serves endpoints whose breaker tripped, one attempt each.
   */
  const pool = (name: string, claimPool: ClaimPool, concurrency: number) =>
    runWorkers<ClaimedDelivery, Sent, AttemptFailed>({
      name,
      store: {
        claim: (limit) =>
          repo.claimDue(claimPool, limit, partnerSettings.webhookPartnerConcurrency, leaseSeconds, BREAKER_THRESHOLD),
        settle
      },
      handle: attempt,
      retryAfter: (_, f) => f.final === undefined ? retryDelay(f.attempts) : Option.none(),
      // A crashed attempt (a database defect…) is left to its lease and sent again, uncounted.
      onDefect: () => Option.none(),
      lease: Duration.seconds(leaseSeconds),
      concurrency,
      pollInterval: partnerSettings.webhookPollInterval,
      id: (d) => d.id,
      span: (d) => ({
        name: "webhook.deliver",
        attributes: { "webhook.delivery_id": d.id, "webhook.event_id": d.event_id, "webhook.attempt": d.attempts + 1 }
      })
    })

  /** Starts this replica's delivery workers in the current scope: the healthy pool and the probe pool. */
  const run: Effect.Effect<void, never, Scope.Scope> = Effect.asVoid(Effect.all([
    pool("webhook delivery", "healthy", partnerSettings.webhookConcurrency),
    pool("webhook probe", "probe", Math.max(2, Math.ceil(partnerSettings.webhookConcurrency / 4)))
  ]))

  return { run }
})
