/**
 * Webhooks end to end with loopback receivers: registration (SSRF-guarded), signed deliveries
 * verified by independent verifiers (node:crypto, and the `standardwebhooks` library), retries
 * (fails twice then succeeds) with each answer's body kept (cut at 4 KiB), a receiver that hangs
 * past 5 s, one that never ends its body, 410 disabling the endpoint, and the service restarted
 * mid-retry on the same database.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { Webhook } from "standardwebhooks"
import type { IssuedCredential } from "../../../src/partner/Credentials.js"
import { ForbiddenError } from "../../../src/platform/http/Errors.js"
import { apiClient } from "../../support/ApiClient.js"
import {
  buy,
  createPartner,
  deliveryOf,
  expectError,
  seedListings,
  signed,
  waitUntil
} from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"
import { type ReceivedDelivery, webhookReceiver } from "../../support/WebhookReceiver.js"

const ENV = { OUTBOUND_ALLOW_LOOPBACK: "true", WEBHOOK_RETRY_BASE: "50 millis", WEBHOOK_POLL_INTERVAL: "100 millis" }

const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`

/** Independent check of X-Service-Signature (hex HMAC-SHA256 of the raw body). */
const serviceSignatureOk = (secret: string, d: ReceivedDelivery) => {
  const expected = createHmac("sha256", secret).update(d.body).digest()
  const given = Buffer.from(String(d.headers["x-service-signature"]), "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const register = (cred: IssuedCredential, url: string, secret: string) =>
  signed(cred, "PUT", "/api/partner/webhooks", { body: { url, secret } })

interface StoredAttempt {
  readonly attempt: number
  readonly status: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly response_body: string | null
  readonly response_body_truncated: boolean
}

const attemptsOf = (eventId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<StoredAttempt>`
      select a.attempt, a.status, a.error, a.duration_ms, a.response_body, a.response_body_truncated
      from partner_webhook_attempts a
      join partner_webhook_deliveries d on d.id = a.delivery_id
      where d.event_id = ${eventId} order by a.seq`).pipe(Effect.orDie)

layer(TestServer.layer(ENV))("webhooks", (it) => {
  it.effect("PUT /api/partner/webhooks: 200 {url, active, created_at}; validation and SSRF refusals", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      // Raw: the exact keys on the wire (a chosen secret is never echoed).
      const r = yield* register(cred, "http://127.0.0.1:9/hooks", newSecret())
      expect(r.status, r.text).toBe(200)
      expect(Object.keys(r.json).sort()).toEqual(["active", "created_at", "url"])
      expect(r.json).toMatchObject({ url: "http://127.0.0.1:9/hooks", active: true })
      // Updating keeps created_at.
      const client = yield* apiClient({ partner: cred })
      const again = yield* client.partnerWebhooks.registerWebhook({
        payload: { url: "http://127.0.0.1:10/hooks", secret: newSecret() }
      })
      expect(again.created_at).toBe(r.json.created_at)
      expect(again.url).toBe("http://127.0.0.1:10/hooks")
      // Raw: one wire code (validation_error) for three declared 400 errors the typed client cannot
      // tell apart, and a secret too short for the payload schema to encode.
      for (
        const url of [
          "not a url",
          "ftp://example.com/x",
          "http://10.0.0.1/hooks",
          "http://169.254.169.254/latest",
          "http://user:pw@127.0.0.1:9/"
        ]
      ) {
        expectError(yield* register(cred, url, newSecret()), 400, "validation_error")
      }
      expectError(yield* register(cred, "http://127.0.0.1:9/hooks", "short"), 400, "validation_error")
      const noScope = yield* apiClient({ partner: yield* createPartner({ scopes: ["search"] }) })
      const refused = yield* Effect.flip(
        noScope.partnerWebhooks.registerWebhook({ payload: { url: "http://127.0.0.1:9/hooks", secret: newSecret() } })
      )
      expect(refused).toBeInstanceOf(ForbiddenError)
    }))

  it.scoped("a delivery carries both signatures, verified independently, and the described envelope", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "hooked.com", bin: 2_500 }])
      const receiver = yield* webhookReceiver()
      const cred = yield* createPartner()
      const client = yield* apiClient({ partner: cred })
      const secret = newSecret()
      const [, registered] = yield* client.partnerWebhooks.registerWebhook({
        payload: { url: receiver.url, secret },
        withResponse: true
      })
      expect(registered.status).toBe(200)
      const id = yield* buy(cred, "hooked.com", 2_500)
      const [d] = yield* receiver.waitFor(1)
      expect(d).toBeDefined()
      expect(serviceSignatureOk(secret, d)).toBe(true)
      // Standard Webhooks, verified by the reference library.
      const verified = new Webhook(secret).verify(d.body, {
        "webhook-id": String(d.headers["webhook-id"]),
        "webhook-timestamp": String(d.headers["webhook-timestamp"]),
        "webhook-signature": String(d.headers["webhook-signature"])
      }) as any
      expect(verified.type).toBe("order.recorded")
      expect(() => new Webhook(newSecret()).verify(d.body, d.headers as any)).toThrow()
      const envelope = JSON.parse(d.body)
      expect(Object.keys(envelope).sort()).toEqual(["created_at", "data", "id", "partner_id", "type"])
      expect(envelope).toMatchObject({
        type: "order.recorded",
        partner_id: cred.partner_id,
        data: {
          order: {
            public_id: id,
            domain: "hooked.com",
            status: "EXTERNALLY_PAID",
            sale_price_cents: 2_500,
            currency: "USD"
          }
        }
      })
      expect(d.headers["content-type"]).toBe("application/json")
      expect(d.headers["x-service-event-id"]).toBe(envelope.id)
      expect(d.headers["webhook-id"]).toBe(envelope.id)
      expect(d.headers["x-service-event-type"]).toBe("order.recorded")
      expect(Math.abs(Number(d.headers["x-service-timestamp"]) - Date.now() / 1000)).toBeLessThan(60)
      // Sandbox advance fires the next webhooks (the delivery's start).
      yield* signed(cred, "POST", `/api/partner/v1/sandbox/orders/${id}/advance`)
      const all = yield* receiver.waitFor(4)
      expect(all.map((d) => JSON.parse(d.body).type)).toEqual([
        "order.recorded",
        "transfer.requested",
        "order.transfer_started",
        "transfer.auth_code_ready"
      ])
      expect(serviceSignatureOk(secret, all[1])).toBe(true)
    }))

  it.scoped(
    "a receiver that fails twice then succeeds: three attempts, all recorded with their answers, delivered",
    () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "flaky.com", bin: 2_500 }])
        // A NUL (PostgreSQL text refuses it), then an answer longer than the 4 KiB kept.
        const receiver = yield* webhookReceiver({
          script: [{ status: 500, body: "quota\u0000exceeded" }, { status: 503, body: "y".repeat(5_000) }]
        })
        const cred = yield* createPartner()
        const secret = newSecret()
        yield* register(cred, receiver.url, secret)
        yield* buy(cred, "flaky.com", 2_500)
        const got = yield* receiver.waitFor(3, 30_000)
        expect(got).toHaveLength(3)
        const ids = got.map((d) => JSON.parse(d.body).id)
        expect(new Set(ids).size).toBe(1)
        expect(got.every((d) => serviceSignatureOk(secret, d))).toBe(true)
        // Retry spacing follows the schedule: ≥ 1× then ≥ 60× the base (50 ms).
        expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(40)
        expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(2_900)
        const delivery = yield* waitUntil(deliveryOf(ids[0]), (d) => d?.status === "delivered")
        expect(delivery).toEqual({ status: "delivered", attempts: 3 })
        expect(
          (yield* attemptsOf(ids[0])).map((a) => [a.attempt, a.status, a.response_body, a.response_body_truncated])
        )
          .toEqual([
            [1, 500, "quota\uFFFDexceeded", false],
            [2, 503, "y".repeat(4_096), true],
            [3, 200, "ok", false]
          ])
      }),
    60_000
  )

  it.scoped("a receiver that hangs past 5 s: the attempt times out and is retried", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "slow.com", bin: 2_500 }])
      const receiver = yield* webhookReceiver({ script: ["hang"] })
      const cred = yield* createPartner()
      yield* register(cred, receiver.url, newSecret())
      yield* buy(cred, "slow.com", 2_500)
      const got = yield* receiver.waitFor(2, 30_000)
      expect(got).toHaveLength(2)
      expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(4_900)
      const eventId = JSON.parse(got[0].body).id
      const attempts = yield* waitUntil(attemptsOf(eventId), (a) => a.length >= 2)
      expect(attempts[0].status).toBeNull()
      expect(attempts[0].error).toContain("timeout")
      expect(attempts[0].response_body).toBeNull()
      expect(attempts[1].status).toBe(200)
    }), 60_000)

  it.scoped(
    "a receiver that answers and never ends its body: delivered once 4 KiB is in, the rest not awaited",
    () =>
      Effect.gen(function*() {
        const receiver = yield* webhookReceiver({ script: [{ status: 200, body: "z".repeat(6_000), hold: true }] })
        const cred = yield* createPartner()
        yield* register(cred, receiver.url, newSecret())
        const test = yield* signed(cred, "POST", "/api/partner/webhooks/test")
        expect(test.status, test.text).toBe(202)
        const eventId = String(test.json.event_id)
        // Waiting for the end would time out (5 s) and retry to the same held answer, never delivered.
        expect(yield* waitUntil(deliveryOf(eventId), (d) => d?.status === "delivered")).toEqual({
          status: "delivered",
          attempts: 1
        })
        const [attempt] = yield* attemptsOf(eventId)
        expect(attempt).toMatchObject({ status: 200, error: null, response_body_truncated: true })
        expect(attempt!.response_body).toBe("z".repeat(4_096))
        expect(attempt!.duration_ms).toBeLessThan(4_000)
        expect(receiver.received).toHaveLength(1)
      }),
    60_000
  )

  it.scoped(
    "410 disables the endpoint: no further deliveries until it is registered again; /events still has everything",
    () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "gone1.com", bin: 100 }, { domain: "gone2.com", bin: 100 }, {
          domain: "gone3.com",
          bin: 100
        }])
        const receiver = yield* webhookReceiver({ script: [{ status: 410 }] })
        const cred = yield* createPartner()
        const secret = newSecret()
        yield* register(cred, receiver.url, secret)
        yield* buy(cred, "gone1.com", 100)
        const [first] = yield* receiver.waitFor(1)
        const eventId = JSON.parse(first.body).id
        expect(yield* waitUntil(deliveryOf(eventId), (d) => d?.status === "failed")).toEqual({
          status: "failed",
          attempts: 1
        })
        yield* buy(cred, "gone2.com", 100)
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 1_000)))
        expect(receiver.received).toHaveLength(1)
        const client = yield* apiClient({ partner: cred })
        const { events } = yield* client.partnerEvents.listEvents({ urlParams: {} })
        // `data` is Schema.Unknown (its shape depends on the event type).
        expect(events.map((e) => (e.data as { order: { domain: string } }).order.domain)).toEqual([
          "gone1.com",
          "gone2.com"
        ])
        // Registering again re-activates the endpoint.
        const again = yield* client.partnerWebhooks.registerWebhook({ payload: { url: receiver.url, secret } })
        expect(again.active).toBe(true)
        yield* buy(cred, "gone3.com", 100)
        const got = yield* receiver.waitFor(2)
        expect(JSON.parse(got[1].body).data.order.domain).toBe("gone3.com")
      }),
    60_000
  )
})

describe("restart mid-retry", () => {
  layer(Layer.empty)("two service lifetimes on one database", (it) => {
    it.scoped("a pending retry survives a restart and is delivered by the next process", () =>
      Effect.gen(function*() {
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        const receiver = yield* webhookReceiver({ script: [{ status: 500 }, { status: 500 }] })
        const secret = newSecret()
        const eventId = yield* Effect.scoped(
          Effect.gen(function*() {
            const first = yield* Layer.build(TestServer.layer(ENV, { databaseUrl }))
            const run = <A, E>(e: Effect.Effect<A, E, TestServer.TestServer | SqlClient.SqlClient>) =>
              Effect.provide(e, first)
            yield* run(seedListings([{ domain: "restart.com", bin: 100 }]))
            const cred = yield* run(createPartner())
            yield* run(register(cred, receiver.url, secret))
            yield* run(buy(cred, "restart.com", 100))
            const got = yield* receiver.waitFor(2)
            expect(got).toHaveLength(2)
            expect(Context.get(first, TestServer.TestServer).baseUrl).toMatch(/^http/)
            return JSON.parse(got[0].body).id as string
          })
        )
        // The first process is gone; its next attempt was due about 3 s after the second.
        const second = yield* Layer.build(TestServer.layer(ENV, { databaseUrl }))
        const got = yield* receiver.waitFor(3, 30_000)
        expect(got).toHaveLength(3)
        expect(JSON.parse(got[2].body).id).toBe(eventId)
        expect(serviceSignatureOk(secret, got[2])).toBe(true)
        const delivery = yield* waitUntil(deliveryOf(eventId), (d) => d?.status === "delivered").pipe(
          Effect.provide(second)
        )
        expect(delivery).toEqual({ status: "delivered", attempts: 3 })
        // Exactly three requests: nothing was sent twice.
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 500)))
        expect(receiver.received).toHaveLength(3)
      }), 120_000)
  })
})
