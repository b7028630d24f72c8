/**
 * Webhook tooling through HTTP on one server: reading and deleting the endpoint, test-firing a
 * signed `webhook.test` event through the normal delivery path, the delivery log (filters,
 * cursor pages, attempts with the receiver's answer), idempotent redelivery (one event, every failed one since a time,
 * never a second pending delivery even under concurrent requests), and the sandbox-only
 * signature debugger.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { PartnerApiError, PartnerClient } from "../../../packages/partner-sdk/src/index.js"
import type { IssuedCredential } from "../../../src/partner/Credentials.js"
import type { WebhookDelivery } from "../../../src/partner/webhooks/Api.js"
import { WebhookDisabled, WebhookEndpointNotFound } from "../../../src/partner/webhooks/Errors.js"
import { ForbiddenError } from "../../../src/platform/http/Errors.js"
import { type ApiClient, apiClient } from "../../support/ApiClient.js"
import { createPartner, expectError, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"
import { type ReceivedDelivery, webhookReceiver } from "../../support/WebhookReceiver.js"

const ENV = { OUTBOUND_ALLOW_LOOPBACK: "true", WEBHOOK_RETRY_BASE: "50 millis", WEBHOOK_POLL_INTERVAL: "100 millis" }

const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`

const register = (cred: IssuedCredential, url: string, secret: string) =>
  signed(cred, "PUT", "/api/partner/webhooks", { body: { url, secret } })
const deliveriesOf = (cred: IssuedCredential, query = "") =>
  signed(cred, "GET", `/api/partner/v1/webhook-deliveries${query}`)
const redeliver = (cred: IssuedCredential, body: unknown) =>
  signed(cred, "POST", "/api/partner/v1/webhook-deliveries/redeliver", { body })

/**
 * Polls the delivery log (through the typed client: a 200 decoded by the page schema) until `ok`
 * holds for the deliveries of `eventId` (generous: the machine is loaded).
 */
const waitForLog = (
  client: ApiClient,
  eventId: string,
  ok: (ds: ReadonlyArray<typeof WebhookDelivery.Type>) => boolean,
  timeoutMs = 30_000
) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const { deliveries } = yield* client.partnerWebhooks.listWebhookDeliveries({ urlParams: { event_id: eventId } })
      if (ok(deliveries) || Date.now() > deadline) return deliveries
      yield* Effect.promise(() => new Promise((res) => setTimeout(res, 100)))
    }
  })

const serviceSignatureOk = (secret: string, d: ReceivedDelivery) => {
  const expected = createHmac("sha256", secret).update(d.body).digest()
  const given = Buffer.from(String(d.headers["x-service-signature"]), "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

layer(TestServer.layer(ENV))("webhook tooling", (it) => {
  it.scoped("GET shows the endpoint without its secret; POST /test delivers a signed webhook.test; the log shows its attempt", () =>
    Effect.gen(function*() {
      const receiver = yield* webhookReceiver()
      const cred = yield* createPartner()
      const client = yield* apiClient({ partner: cred })
      // The error envelope on the wire (code, request_id = X-Request-Id); then the typed error.
      expectError(yield* signed(cred, "GET", "/api/partner/webhooks"), 404, "not_found")
      expect(yield* Effect.flip(client.partnerWebhooks.testWebhook())).toBeInstanceOf(WebhookEndpointNotFound)
      const secret = newSecret()
      const [, registered] = yield* client.partnerWebhooks.registerWebhook({
        payload: { url: receiver.url, secret },
        withResponse: true
      })
      expect(registered.status).toBe(200)

      const shown = yield* client.partnerWebhooks.getWebhook()
      expect(shown).toMatchObject({
        url: receiver.url,
        active: true,
        state: "active",
        disabled_reason: null,
        last_attempt: null
      })
      // On the wire: never the secret.
      const wire = yield* signed(cred, "GET", "/api/partner/webhooks")
      expect(wire.status, wire.text).toBe(200)
      expect(wire.text).not.toContain(secret)
      expect(Object.keys(wire.json)).not.toContain("secret")

      const [test, testResponse] = yield* client.partnerWebhooks.testWebhook({ withResponse: true })
      expect(testResponse.status).toBe(202)
      const eventId = test.event_id
      expect(eventId).toMatch(/^evt_/)
      const [got] = yield* receiver.waitFor(1)
      expect(got, "the test event arrived").toBeDefined()
      // The normal path: both signatures, the usual headers and envelope.
      expect(got!.headers["x-service-event-type"]).toBe("webhook.test")
      expect(got!.headers["x-service-event-id"]).toBe(eventId)
      expect(serviceSignatureOk(secret, got!)).toBe(true)
      const verified = new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>) as any
      expect(verified).toMatchObject({ id: eventId, type: "webhook.test", partner_id: cred.partner_id })

      const [delivery] = yield* waitForLog(client, eventId, (ds) => ds[0]?.status === "delivered")
      expect(delivery).toMatchObject({
        event_id: eventId,
        event_type: "webhook.test",
        status: "delivered",
        attempt_count: 1,
        next_attempt_at: null
      })
      expect(delivery.attempts).toHaveLength(1)
      // The receiver's answer (`ok`), whole.
      expect(delivery.attempts[0]).toMatchObject({
        attempt: 1,
        status: 200,
        error: null,
        response_body: "ok",
        response_body_truncated: false
      })
      expect(typeof delivery.attempts[0].duration_ms).toBe("number")

      const after = yield* client.partnerWebhooks.getWebhook()
      expect(after.last_attempt).toMatchObject({ status: 200, error: null, delivery_id: delivery.id })
      // It is an event like the others.
      const events = yield* client.partnerEvents.listEvents({ urlParams: {} })
      expect(events.events.map((e) => e.id)).toContain(eventId)
      // Another partner sees nothing of it.
      const other = yield* createPartner()
      const otherClient = yield* apiClient({ partner: other })
      expect((yield* otherClient.partnerWebhooks.listWebhookDeliveries({ urlParams: {} })).deliveries).toEqual([])
      // Raw: redeliver declares two 404 not_found errors with the same envelope (no endpoint, no such
      // event), which the typed client cannot tell apart.
      expectError(yield* redeliver(other, { event_id: eventId }), 404, "not_found")
    }))

  it.scoped("the log: newest first, status and event filters, cursor pages; bad parameters are 400", () =>
    Effect.gen(function*() {
      const receiver = yield* webhookReceiver()
      const cred = yield* createPartner()
      const client = yield* apiClient({ partner: cred })
      yield* register(cred, receiver.url, newSecret())
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) ids.push((yield* client.partnerWebhooks.testWebhook()).event_id)
      yield* receiver.waitFor(3)
      for (const id of ids) yield* waitForLog(client, id, (ds) => ds[0]?.status === "delivered")

      const log = (urlParams: Parameters<ApiClient["partnerWebhooks"]["listWebhookDeliveries"]>[0]["urlParams"]) =>
        client.partnerWebhooks.listWebhookDeliveries({ urlParams })
      const all = yield* log({})
      expect(all.deliveries.map((d) => d.event_id)).toEqual([...ids].reverse())
      expect(all.next_cursor).toBeNull()
      const p1 = yield* log({ limit: 2 })
      expect(p1.deliveries.map((d) => d.event_id)).toEqual([ids[2], ids[1]])
      const p2 = yield* log({ cursor: p1.next_cursor ?? "", limit: 2 })
      expect(p2.deliveries.map((d) => d.event_id)).toEqual([ids[0]])
      expect(p2.next_cursor).toBeNull()
      expect((yield* log({ status: "failed" })).deliveries).toEqual([])
      expect((yield* log({ status: "delivered" })).deliveries).toHaveLength(3)
      expect((yield* log({ event_id: ids[1] })).deliveries.map((d) => d.event_id)).toEqual([ids[1]])

      // Raw: malformed parameters the typed client cannot send, and one wire code (validation_error)
      // shared by three declared 400 errors the typed client cannot tell apart.
      for (const q of ["?limit=0", "?limit=101", "?limit=x", "?status=bogus", "?event_id=nope", "?cursor=garbage"]) {
        expectError(yield* deliveriesOf(cred, q), 400, "validation_error")
      }
      // A cursor is bound to the filters it was issued for.
      expectError(
        yield* deliveriesOf(cred, `?cursor=${encodeURIComponent(p1.next_cursor ?? "")}&limit=2&status=failed`),
        400,
        "validation_error"
      )
    }))

  it.scoped("a 410 disables the endpoint (GET shows it); redeliver {since, status: failed} after re-registering, once", () =>
    Effect.gen(function*() {
      const receiver = yield* webhookReceiver({ script: [{ status: 410 }], fallback: { status: 200 } })
      const cred = yield* createPartner()
      const client = yield* apiClient({ partner: cred })
      const secret = newSecret()
      yield* register(cred, receiver.url, secret)
      const since = new Date(Date.now() - 60_000).toISOString()
      const eventId = (yield* client.partnerWebhooks.testWebhook()).event_id
      const [failed] = yield* waitForLog(client, eventId, (ds) => ds[0]?.status === "failed")
      expect(failed).toMatchObject({ status: "failed", last_status: 410 })
      expect(failed.attempts[0]).toMatchObject({ status: 410, response_body: "nope", response_body_truncated: false })
      const failedOnly = yield* client.partnerWebhooks.listWebhookDeliveries({ urlParams: { status: "failed" } })
      expect(failedOnly.deliveries.map((d) => d.id)).toEqual([failed.id])

      const shown = yield* client.partnerWebhooks.getWebhook()
      expect(shown).toMatchObject({ active: false, state: "disabled", last_attempt: { status: 410 } })
      expect(shown.disabled_reason).toContain("410")
      // The error envelope on the wire (code, request_id = X-Request-Id); then the typed error.
      expectError(yield* signed(cred, "POST", "/api/partner/webhooks/test"), 409, "webhook_disabled")
      expect(yield* Effect.flip(client.partnerWebhooks.redeliverWebhooks({ payload: { since, status: "failed" } })))
        .toBeInstanceOf(WebhookDisabled)

      yield* register(cred, receiver.url, secret)
      const [r, rResponse] = yield* client.partnerWebhooks.redeliverWebhooks({
        payload: { since, status: "failed" },
        withResponse: true
      })
      expect(rResponse.status).toBe(202)
      expect(r).toEqual({ queued: 1, already_pending: 0 })
      const ds = yield* waitForLog(client, eventId, (ds) => ds[0]?.status === "delivered")
      expect(ds.map((d) => d.status)).toEqual(["delivered", "failed"])
      expect(receiver.received).toHaveLength(2)
      expect(receiver.received[1]!.headers["x-service-event-id"]).toBe(eventId)
      // Delivered since: nothing left to redeliver.
      expect(yield* client.partnerWebhooks.redeliverWebhooks({ payload: { since, status: "failed" } })).toEqual({
        queued: 0,
        already_pending: 0
      })
      // One event can always be sent again on request.
      expect(yield* client.partnerWebhooks.redeliverWebhooks({ payload: { event_id: eventId } })).toEqual({
        queued: 1,
        already_pending: 0
      })
      yield* receiver.waitFor(3)
      expect(receiver.received[2]!.headers["x-service-event-id"]).toBe(eventId)
    }))

  it.scoped("redelivery never duplicates a pending delivery (also under concurrent requests); DELETE cancels pending ones", () =>
    Effect.gen(function*() {
      // Always 500: a delivery stays pending (retries after 50 ms, then 3 s, 18 s…).
      const receiver = yield* webhookReceiver({ fallback: { status: 500 } })
      const cred = yield* createPartner()
      const client = yield* apiClient({ partner: cred })
      const secret = newSecret()
      yield* register(cred, receiver.url, secret)
      const eventId = (yield* client.partnerWebhooks.testWebhook()).event_id
      const [pending] = yield* waitForLog(client, eventId, (ds) => ds[0]?.attempt_count >= 1)
      expect(pending).toMatchObject({ status: "pending", last_status: 500, last_error: "HTTP 500" })
      expect(pending.next_attempt_at).not.toBeNull()
      expect(yield* client.partnerWebhooks.redeliverWebhooks({ payload: { event_id: eventId } })).toEqual({
        queued: 0,
        already_pending: 1
      })
      expect(yield* waitForLog(client, eventId, () => true)).toHaveLength(1)

      // Raw: the 204 status line and its empty body.
      const del = yield* signed(cred, "DELETE", "/api/partner/webhooks")
      expect(del.status, del.text).toBe(204)
      expect(del.text).toBe("")
      const [cancelled] = yield* waitForLog(client, eventId, () => true)
      expect(cancelled.status).toBe("cancelled")
      // The error envelope on the wire (code, request_id = X-Request-Id); then the typed error.
      expectError(yield* signed(cred, "GET", "/api/partner/webhooks"), 404, "not_found")
      expect(yield* Effect.flip(client.partnerWebhooks.deleteWebhook())).toBeInstanceOf(WebhookEndpointNotFound)
      // Raw: redeliver's two 404 not_found errors share one envelope (see the first test).
      expectError(yield* redeliver(cred, { event_id: eventId }), 404, "not_found")

      // Re-registered: three concurrent redeliveries of the event queue exactly one.
      yield* register(cred, receiver.url, secret)
      const replies = yield* Effect.all(
        [1, 2, 3].map(() =>
          client.partnerWebhooks.redeliverWebhooks({ payload: { event_id: eventId }, withResponse: true })
        ),
        { concurrency: "unbounded" }
      )
      for (const [, response] of replies) expect(response.status).toBe(202)
      expect(replies.reduce((n, [r]) => n + r.queued, 0)).toBe(1)
      expect(replies.reduce((n, [r]) => n + r.already_pending, 0)).toBe(2)
      const ds = yield* waitForLog(client, eventId, () => true)
      expect(ds.filter((d) => d.status === "pending")).toHaveLength(1)
      yield* signed(cred, "DELETE", "/api/partner/webhooks")
    }))

  it.effect("redeliver: bad input is 400 validation_error (invalid_body for broken JSON); an unknown event is 404", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      yield* register(cred, "http://127.0.0.1:9/hooks", newSecret())
      for (
        const body of [
          {},
          { event_id: "evt_01jc0000000000000000000000", since: "2026-01-01T00:00:00Z" },
          { since: "yesterday" },
          { since: "2026-01-01" },
          { since: "2026-01-01T00:00:00Z", status: "delivered" },
          { event_id: "nope" },
          { event_id: "evt_01jc0000000000000000000000", status: "failed" },
          { event_id: 42 }
        ]
      ) {
        expectError(yield* redeliver(cred, body), 400, "validation_error")
      }
      expectError(yield* redeliver(cred, "{not json"), 400, "invalid_body")
      // Raw: an unknown event and a missing endpoint are both 404 not_found with one envelope.
      expectError(yield* redeliver(cred, { event_id: "evt_01jc0000000000000000000000" }), 404, "not_found")
      const client = yield* apiClient({ partner: cred })
      expect(yield* client.partnerWebhooks.redeliverWebhooks({ payload: { since: "2026-01-01T00:00:00Z" } })).toEqual({
        queued: 0,
        already_pending: 0
      })
      yield* signed(cred, "DELETE", "/api/partner/webhooks")
    }))

  it.effect("every tooling endpoint needs the webhook scope (403)", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner({ scopes: ["search", "buy"] })
      // The error envelope on the wire (code, request_id = X-Request-Id); then the typed errors.
      expectError(yield* signed(cred, "GET", "/api/partner/webhooks"), 403, "forbidden")
      const client = yield* apiClient({ partner: cred })
      const refusals = yield* Effect.all([
        Effect.flip(client.partnerWebhooks.deleteWebhook()),
        Effect.flip(client.partnerWebhooks.testWebhook()),
        Effect.flip(client.partnerWebhooks.listWebhookDeliveries({ urlParams: {} })),
        Effect.flip(client.partnerWebhooks.redeliverWebhooks({ payload: { since: "2026-01-01T00:00:00Z" } }))
      ])
      for (const e of refusals) expect(e).toBeInstanceOf(ForbiddenError)
    }))

  it.scoped("the partner SDK's webhook methods: get, test, the deliveries iterator, redeliver, delete", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestServer.TestServer
      const receiver = yield* webhookReceiver()
      const cred = yield* createPartner()
      const client = new PartnerClient({ baseUrl, keyId: cred.key_id, secret: cred.secret })
      const call = <A>(f: () => Promise<A>) =>
        Effect.promise(() => f().then((a) => ({ ok: a }), (e: unknown) => ({ error: e })))
      const missing = yield* call(() => client.getWebhook())
      expect("error" in missing && missing.error instanceof PartnerApiError && missing.error.code).toBe("not_found")
      yield* Effect.promise(() => client.registerWebhook({ url: receiver.url }))
      expect(yield* Effect.promise(() => client.getWebhook())).toMatchObject({ url: receiver.url, state: "active" })
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) ids.push((yield* Effect.promise(() => client.testWebhook())).event_id)
      yield* receiver.waitFor(3)
      const log = yield* apiClient({ partner: cred })
      for (const id of ids) yield* waitForLog(log, id, (ds) => ds[0]?.status === "delivered")
      const seen = yield* Effect.promise(async () => {
        const out: Array<string> = []
        for await (const d of client.webhookDeliveries({ limit: 1 })) out.push(d.event_id)
        return out
      })
      expect(seen).toEqual([...ids].reverse())
      expect(yield* Effect.promise(() => client.redeliver({ event_id: ids[0]! }))).toEqual({
        queued: 1,
        already_pending: 0
      })
      yield* Effect.promise(() => client.deleteWebhook())
      const gone = yield* call(() => client.deleteWebhook())
      expect("error" in gone && gone.error instanceof PartnerApiError && gone.error.status).toBe(404)
    }))

  it.effect("OpenAPI: every status each tooling operation can answer", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestServer.TestServer
      const doc = yield* Effect.promise(() =>
        fetch(`${baseUrl}/api/openapi.json`).then((r) => r.json() as Promise<any>)
      )
      const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses)
      const auth = ["401", "403", "429", "500"]
      expect(statuses("/api/partner/webhooks", "get")).toEqual(expect.arrayContaining(["200", "404", ...auth]))
      expect(statuses("/api/partner/webhooks", "delete")).toEqual(expect.arrayContaining(["204", "404", ...auth]))
      expect(statuses("/api/partner/webhooks/test", "post")).toEqual(
        expect.arrayContaining(["202", "404", "409", ...auth])
      )
      expect(statuses("/api/partner/v1/webhook-deliveries", "get")).toEqual(
        expect.arrayContaining(["200", "400", ...auth])
      )
      expect(statuses("/api/partner/v1/webhook-deliveries/redeliver", "post")).toEqual(
        expect.arrayContaining(["202", "400", "404", "409", ...auth])
      )
      expect(doc.paths["/api/partner/v1/webhook-deliveries"].get["x-required-scopes"]).toEqual(["webhook"])
    }))

  describe("signature debugger", () => {
    const ts = () => Math.floor(Date.now() / 1000)
    const canonicalOf = (path: string, query: string, timestamp: number, nonce: string, body: string) =>
      ["POST", path, query, String(timestamp), nonce, createHash("sha256").update(body).digest("hex")].join("\n")

    it.effect("sandbox + X-Service-Debug: signature → details.canonical_string (never the secret or expected signature)", () =>
      Effect.gen(function*() {
        const cred = yield* createPartner({ environment: "sandbox" })
        const timestamp = ts()
        const nonce = crypto.randomUUID()
        const body = JSON.stringify({ since: "2026-01-01T00:00:00Z" })
        const path = "/api/partner/v1/webhook-deliveries/redeliver"
        const r = yield* signed(cred, "POST", `${path}?b=2&a=1`, {
          body,
          timestamp,
          nonce,
          secret: "not-the-secret-at-all",
          headers: { "x-service-debug": "signature" }
        })
        const error = expectError(r, 401, "invalid_signature") as any
        expect(error.details.canonical_string).toBe(canonicalOf(path, "a=1&b=2", timestamp, nonce, body))
        expect(r.text).not.toContain(cred.secret)
        const expected = createHmac("sha256", cred.secret).update(error.details.canonical_string).digest("hex")
        expect(r.text).not.toContain(expected)
        // Without the header: the plain error.
        const plain = yield* signed(cred, "POST", path, { body, secret: "not-the-secret-at-all" })
        expect((expectError(plain, 401, "invalid_signature") as any).details).toBeUndefined()
      }))

    it.effect("refused for live credentials and unknown key ids: no details", () =>
      Effect.gen(function*() {
        const live = yield* createPartner({ environment: "live" })
        const r = yield* signed(live, "GET", "/api/partner/webhooks", {
          secret: "not-the-secret-at-all",
          headers: { "x-service-debug": "signature" }
        })
        const error = expectError(r, 401, "invalid_signature") as any
        expect(error.details).toBeUndefined()
        expect(r.text).not.toContain("canonical_string")
        const unknown = { ...live, key_id: `${live.key_id}x` }
        const u = yield* signed(unknown, "GET", "/api/partner/webhooks", {
          headers: { "x-service-debug": "signature" }
        })
        expect((expectError(u, 401, "invalid_signature") as any).details).toBeUndefined()
        // A correct signature is unaffected by the header.
        const debugging = yield* apiClient({ partner: live, headers: { "x-service-debug": "signature" } })
        const [, ok] = yield* debugging.partnerWebhooks.listWebhookDeliveries({ urlParams: {}, withResponse: true })
        expect(ok.status).toBe(200)
      }))
  })
})
