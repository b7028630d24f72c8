/**
 * Webhook endpoints of a partner: registration, state, removal, test events, the delivery log and
 * redelivery. The sending itself is Delivery.ts (`run`).
 *
 * Registration checks the URL (http(s) only, HTTPS in production) and that it resolves to public
 * addresses only (Outbound.check: no loopback, private, link-local… addresses). Failures are the
 * domain errors of Errors.ts; this service knows nothing of HTTP.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Effect, Option } from "effect"
import { checkDelivery as checkSignatures, type ReceivedDelivery } from "../../domain/PartnerSigning.js"
import { AppConfig } from "../../platform/Config.js"
import { Outbound } from "../../platform/outbound/Outbound.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import type { PartnerIdentity } from "../Auth.js"
import { Outbox } from "../events/Outbox.js"
import { makeDelivery } from "./Delivery.js"
import {
  InvalidWebhookSecret,
  InvalidWebhookUrl,
  WebhookDisabled,
  WebhookEndpointNotFound,
  WebhookEventNotFound
} from "./Errors.js"
import { type DeliveryStatus, WebhookRepo } from "./Repo.js"
import { isStandardSecret, issueSecret, SEAL_PURPOSE } from "./Secret.js"

/** Whose endpoint: a partner in one environment (a signed credential, or a console member's choice). */
export type WebhookOwner = Pick<PartnerIdentity, "partnerId" | "environment">

const noEndpoint = () =>
  new WebhookEndpointNotFound({
    message: "No webhook endpoint is registered for this credential's environment (PUT /api/partner/webhooks)"
  })

const make = Effect.gen(function*() {
  const repo = yield* WebhookRepo
  const outbox = yield* Outbox
  const sql = yield* SqlClient.SqlClient
  const outbound = yield* Outbound
  const secrets = yield* ServiceSecret
  const config = yield* AppConfig
  const delivery = yield* makeDelivery

  /** The one URL check of every door: absolute http(s), HTTPS in production, public addresses only. */
  const checkUrl = (url: string) =>
    Effect.gen(function*() {
      const parsed = yield* Effect.try({
        try: () => new URL(url),
        catch: () => InvalidWebhookUrl.of("must be an absolute URL")
      })
      if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
        return yield* InvalidWebhookUrl.of("must be an HTTPS URL")
      }
      if (config.production && parsed.protocol !== "https:") return yield* InvalidWebhookUrl.of("must use HTTPS")
      if (parsed.username || parsed.password) return yield* InvalidWebhookUrl.of("must not carry credentials")
      yield* outbound.check(parsed.toString()).pipe(
        Effect.mapError((e) => InvalidWebhookUrl.of(`not allowed (${e.reason}): ${e.message}`))
      )
      return parsed
    })

  const register = (partner: WebhookOwner, url: string, chosenSecret: string | undefined) =>
    Effect.gen(function*() {
      const parsed = yield* checkUrl(url)
      if (chosenSecret?.startsWith("whsec_") && !isStandardSecret(chosenSecret)) {
        return yield* InvalidWebhookSecret.of("a whsec_ secret must be whsec_ followed by base64 of at least 16 bytes")
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

  /** The endpoint as the partner sees it (never the secret), with its latest attempt. */
  const show = (partner: WebhookOwner) =>
    Effect.gen(function*() {
      const endpoint = yield* repo.endpoint(partner.partnerId, partner.environment)
      if (Option.isNone(endpoint)) return yield* noEndpoint()
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
  const remove = (partner: WebhookOwner) =>
    Effect.flatMap(
      repo.deleteEndpoint(partner.partnerId, partner.environment),
      (deleted) => deleted ? Effect.void : noEndpoint()
    )

  const activeEndpoint = (partner: WebhookOwner) =>
    Effect.gen(function*() {
      const endpoint = yield* repo.endpoint(partner.partnerId, partner.environment)
      if (Option.isNone(endpoint)) return yield* noEndpoint()
      if (!endpoint.value.active) {
        return yield* new WebhookDisabled({
          message: `The webhook endpoint is disabled (${
            endpoint.value.disabled_reason ?? "disabled"
          }); register it again (PUT /api/partner/webhooks) to re-activate it`
        })
      }
      return endpoint.value
    })

  /**
   * A `webhook.test` event, recorded like any other (so it is in GET /events too) and queued for
   * the endpoint in the same transaction: the worker signs and sends it as it sends every event.
   */
  const test = (partner: WebhookOwner) =>
    Effect.gen(function*() {
      yield* activeEndpoint(partner)
      const now = new Date(yield* Clock.currentTimeMillis)
      const eventId = yield* outbox.append({
        partnerId: partner.partnerId,
        environment: partner.environment,
        type: "webhook.test",
        data: {
          test: true,
          message: "A test event sent on request (POST /api/partner/webhooks/test)",
          requested_at: now.toISOString()
        }
      }).pipe(sql.withTransaction, Effect.orDie)
      return { event_id: eventId }
    })

  const deliveries = (
    partner: WebhookOwner,
    filters: { readonly status?: DeliveryStatus | undefined; readonly eventId?: string | undefined },
    before: string | null,
    limit: number
  ) =>
    Effect.gen(function*() {
      const page = yield* repo.deliveries(partner.partnerId, partner.environment, filters, before, limit)
      // Every delivery's event exists (a foreign key): its type is the events slice's to tell.
      const types = yield* outbox.typesOf([...new Set(page.deliveries.map((d) => d.event_id))])
      return {
        hasMore: page.hasMore,
        deliveries: page.deliveries.map((d) => ({
          id: d.id,
          event_id: d.event_id,
          event_type: types.get(d.event_id) ?? "",
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
            error: a.error,
            response_body: a.response_body,
            response_body_truncated: a.response_body_truncated
          }))
        }))
      }
    })

  /**
   * Queues one event again, or every event whose delivery failed since a time. An event that
   * already has a pending delivery is left alone (counted in `already_pending`), so repeating
   * the request queues nothing twice.
   */
  const redeliver = (partner: WebhookOwner, request: { readonly eventId: string } | { readonly since: Date }) =>
    Effect.gen(function*() {
      yield* activeEndpoint(partner)
      let eventIds: ReadonlyArray<string>
      if ("eventId" in request) {
        eventIds = [request.eventId]
      } else {
        eventIds = yield* repo.failedSince(partner.partnerId, partner.environment, request.since)
      }
      // The partner's own events only, each with the key its deliveries are ordered by.
      const keys = yield* outbox.orderKeysOf(partner.partnerId, partner.environment, eventIds)
      if ("eventId" in request && !keys.has(request.eventId)) {
        return yield* new WebhookEventNotFound({
          message: "No such event for this credential's partner and environment"
        })
      }
      let queued = 0
      for (const id of eventIds) {
        const key = keys.get(id)
        if (key !== undefined && (yield* repo.enqueue(partner.partnerId, partner.environment, id, key))) queued++
      }
      return { queued, already_pending: eventIds.length - queued }
    })

  /**
   * The console's "set the URL": the same check as `register`; an existing endpoint keeps its
   * secret (so receivers keep verifying), a first one gets an issued secret, shown once.
   */
  const setUrl = (partner: WebhookOwner, url: string) =>
    Effect.gen(function*() {
      const current = yield* repo.deliveryTarget(partner.partnerId, partner.environment)
      if (Option.isNone(current)) return yield* register(partner, url, undefined)
      const parsed = yield* checkUrl(url)
      const row = yield* repo.upsertEndpoint({
        partnerId: partner.partnerId,
        environment: partner.environment,
        url: parsed.toString(),
        secretSealed: current.value.secret_sealed
      })
      return { url: row.url, active: row.active, created_at: row.created_at.toISOString() }
    })

  /** A new issued secret for the current URL (shown once); like registering again, it re-activates. */
  const rotateSecret = (partner: WebhookOwner) =>
    Effect.gen(function*() {
      const current = yield* repo.endpoint(partner.partnerId, partner.environment)
      if (Option.isNone(current)) return yield* noEndpoint()
      const secret = issueSecret()
      const row = yield* repo.upsertEndpoint({
        partnerId: partner.partnerId,
        environment: partner.environment,
        url: current.value.url,
        secretSealed: secrets.encrypt(SEAL_PURPOSE, secret)
      })
      return { url: row.url, active: row.active, created_at: row.created_at.toISOString(), secret }
    })

  /**
   * Whether a delivery the partner received carries the signatures of the endpoint's current secret
   * (the console's check): match or not per header, never the secret or the expected value.
   */
  const checkDelivery = (partner: WebhookOwner, received: ReceivedDelivery) =>
    Effect.gen(function*() {
      const endpoint = yield* repo.deliveryTarget(partner.partnerId, partner.environment)
      if (Option.isNone(endpoint)) return yield* noEndpoint()
      const secret = secrets.decrypt(SEAL_PURPOSE, endpoint.value.secret_sealed)
      if (Option.isNone(secret)) return yield* Effect.dieMessage("webhook endpoint secret unreadable")
      return checkSignatures(secret.value, received)
    })

  return { register, setUrl, rotateSecret, run: delivery.run, show, remove, test, deliveries, redeliver, checkDelivery }
})

export class Webhooks extends Effect.Service<Webhooks>()("app/PartnerWebhooks", {
  effect: make,
  dependencies: [WebhookRepo.Default, Outbox.Live]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = Webhooks.Default
}
