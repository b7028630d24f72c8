/**
 * The signing middleware over real HTTP: every failure mode's code and status, scopes, revoked
 * credentials, the partner client, HTTPS in production, per-credential rate limits, and a nonce
 * replayed against a second server on the same database.
 */
import { FetchHttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { jsonBody, makePartnerClient, signRequest } from "../../src/partner-client/index.js"
import { fetchReply, get, request } from "../support/http.js"
import {
  createPartner,
  expectError,
  revokeKey,
  seedListings,
  setKeyScopes,
  signed,
  suspendPartner
} from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const path = "/api/partner/v1/availability?domain=signed-example.com"

layer(TestServer.layer())("partner request signing", (it) => {
  it.effect("a correctly signed request is served; the credential's environment selects the inventory", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "signed-example.com", bin: 4200 }, {
        domain: "signed-example.com",
        bin: 999_900,
        environment: "live"
      }])
      const sandbox = yield* createPartner({ environment: "sandbox" })
      const live = yield* createPartner({ environment: "live" })
      expect(sandbox.key_id).toMatch(/^pk_sandbox_/)
      expect(live.key_id).toMatch(/^pk_live_/)
      expect(sandbox.secret).toMatch(/^sk_/)
      const a = yield* signed(sandbox, "GET", path)
      expect(a.status, a.text).toBe(200)
      expect(a.json).toEqual({ domain: "signed-example.com", available: true, price_cents: 4200, currency: "USD" })
      const b = yield* signed(live, "GET", path)
      expect(b.json.price_cents).toBe(999_900)
    }))

  it.effect("401 missing_credentials without a key id; 401 missing_signature_headers naming what is missing", () =>
    Effect.gen(function*() {
      expectError(yield* get(path), 401, "missing_credentials")
      const cred = yield* createPartner()
      const r = yield* get(path, {
        "x-service-key-id": cred.key_id,
        "x-service-timestamp": String(Math.floor(Date.now() / 1000))
      })
      const e = expectError(r, 401, "missing_signature_headers")
      expect(e.message).toContain("X-Service-Nonce")
      expect(e.message).toContain("X-Service-Signature")
      expect(e.message).not.toContain("X-Service-Timestamp")
    }))

  it.effect("401 invalid_timestamp for milliseconds, drift over 300 s, or garbage", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      const now = Math.floor(Date.now() / 1000)
      for (const timestamp of [now * 1000, now - 301, now + 400]) {
        expectError(yield* signed(cred, "GET", path, { timestamp }), 401, "invalid_timestamp")
      }
      const headers = signRequest({ keyId: cred.key_id, secret: cred.secret }, { method: "GET", url: path })
      expectError(yield* get(path, { ...headers, "x-service-timestamp": "yesterday" }), 401, "invalid_timestamp")
      // Within the window is fine.
      expect((yield* signed(cred, "GET", path, { timestamp: now - 250 })).status).toBe(200)
    }))

  it.effect("401 invalid_signature: wrong secret, unknown key id, tampered body/query/path, wrong method", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      expectError(yield* signed(cred, "GET", path, { secret: "sk_wrong" }), 401, "invalid_signature")
      expectError(yield* signed({ ...cred, key_id: "pk_sandbox_doesnotexist" }, "GET", path), 401, "invalid_signature")
      const base = yield* TestServer.TestServer
      const h = signRequest({ keyId: cred.key_id, secret: cred.secret }, { method: "GET", url: path })
      // Query changed after signing.
      expectError(
        yield* Effect.promise(() =>
          fetchReply(`${base.baseUrl}${path.replace("signed-example", "other")}`, { headers: h })
        ),
        401,
        "invalid_signature"
      )
      // Body changed after signing (re-serialised).
      const body = `{"domain":"signed-example.com"}`
      const hb = signRequest({ keyId: cred.key_id, secret: cred.secret }, {
        method: "POST",
        url: "/api/partner/v1/quotes",
        body
      })
      expectError(
        yield* request("/api/partner/v1/quotes", {
          method: "POST",
          body: `{ "domain": "signed-example.com" }`,
          headers: { ...hb, "content-type": "application/json" }
        }),
        401,
        "invalid_signature"
      )
      // Signed as PUT, sent as POST.
      const hm = signRequest({ keyId: cred.key_id, secret: cred.secret }, {
        method: "PUT",
        url: "/api/partner/v1/quotes",
        body
      })
      expectError(
        yield* request("/api/partner/v1/quotes", {
          method: "POST",
          body,
          headers: { ...hm, "content-type": "application/json" }
        }),
        401,
        "invalid_signature"
      )
      // Malformed signature header.
      expectError(
        yield* get(path, {
          ...signRequest({ keyId: cred.key_id, secret: cred.secret }, { method: "GET", url: path }),
          "x-service-signature": "v1=zz"
        }),
        401,
        "invalid_signature"
      )
    }))

  it.effect("401 replay_detected when a nonce is reused, even with a fresh timestamp", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      const nonce = crypto.randomUUID()
      expect((yield* signed(cred, "GET", path, { nonce })).status).toBe(200)
      expectError(yield* signed(cred, "GET", path, { nonce }), 401, "replay_detected")
      expectError(
        yield* signed(cred, "GET", path, { nonce, timestamp: Math.floor(Date.now() / 1000) + 5 }),
        401,
        "replay_detected"
      )
      // Another credential may use the same nonce value.
      const other = yield* createPartner()
      expect((yield* signed(other, "GET", path, { nonce })).status).toBe(200)
    }))

  it.effect("403 credential_not_active after revocation; 403 forbidden without the scope", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      expect((yield* signed(cred, "GET", path)).status).toBe(200)
      yield* revokeKey(cred.key_id)
      expectError(yield* signed(cred, "GET", path), 403, "credential_not_active")
      // A revoked key with a wrong signature still says nothing but invalid_signature.
      expectError(yield* signed(cred, "GET", path, { secret: "sk_wrong" }), 401, "invalid_signature")

      const webhookOnly = yield* createPartner({ scopes: ["webhook"] })
      const e = expectError(yield* signed(webhookOnly, "GET", path), 403, "forbidden")
      expect(e.message).toContain("search")
      expectError(
        yield* signed(webhookOnly, "POST", "/api/partner/v1/quotes", { body: { domain: "signed-example.com" } }),
        403,
        "forbidden"
      )
      const searchOnly = yield* createPartner({ scopes: ["search"] })
      expectError(
        yield* signed(searchOnly, "POST", "/api/partner/v1/quotes", { body: { domain: "signed-example.com" } }),
        403,
        "forbidden"
      )
      // GET /orders accepts search or buy.
      expect((yield* signed(searchOnly, "GET", "/api/partner/v1/orders")).status).toBe(200)
      expectError(yield* signed(searchOnly, "GET", "/api/partner/v1/events"), 403, "forbidden")
    }))

  it.effect("a suspended partner's keys get 403 credential_not_active until it is resumed; other partners are served", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      const other = yield* createPartner()
      expect((yield* signed(cred, "GET", path)).status).toBe(200)
      expect(yield* suspendPartner(cred.partner_id)).toBe(true)
      const e = expectError(yield* signed(cred, "GET", path), 403, "credential_not_active")
      expect(e.message).toContain("suspended")
      expect((yield* signed(other, "GET", path)).status).toBe(200)
      expect(yield* suspendPartner(cred.partner_id, false)).toBe(true)
      expect((yield* signed(cred, "GET", path)).status).toBe(200)
      expect(yield* suspendPartner("ptn_nobody")).toBe(false)
    }))

  it.effect("a key's scopes changed elsewhere hold at the next request, though the server has the key cached", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner({ scopes: ["search"] })
      // Served (and so cached by the server) with its first scopes.
      expect((yield* signed(cred, "GET", path)).status).toBe(200)
      expectError(yield* signed(cred, "GET", "/api/partner/v1/events"), 403, "forbidden")
      expect(yield* setKeyScopes(cred.key_id, ["webhook"])).toBe(true)
      expectError(yield* signed(cred, "GET", path), 403, "forbidden")
      expect((yield* signed(cred, "GET", "/api/partner/v1/events")).status).toBe(200)
      yield* revokeKey(cred.key_id)
      expect(yield* setKeyScopes(cred.key_id, ["search"])).toBe(false)
    }))

  it.effect("400 missing_idempotency_key on POST /orders; 400 validation_error naming the field", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      const order = {
        domain: "signed-example.com",
        expected_price: 4200,
        currency: "USD",
        external_payment_ref: "p1",
        buyer: { email: "b@example.org" }
      }
      expectError(
        yield* signed(cred, "POST", "/api/partner/v1/orders", { body: order }),
        400,
        "missing_idempotency_key"
      )
      const bad = yield* signed(cred, "POST", "/api/partner/v1/orders", {
        body: { ...order, expected_price: "42.00" },
        headers: { "idempotency-key": crypto.randomUUID() }
      })
      expect(expectError(bad, 400, "validation_error").message).toContain("expected_price")
      const badQ = yield* signed(cred, "GET", "/api/partner/v1/domains/search?q=" + encodeURIComponent("x".repeat(101)))
      expect(expectError(badQ, 400, "validation_error").message).toContain("q")
    }))

  it.effect("awkward queries sign and verify: repeated keys, UTF-8, spaces, ! ' ( ) *, blank values", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      // Signature accepted (so not 401); the answer is the endpoint's own validation.
      const r1 = yield* signed(cred, "GET", "/api/partner/v1/domains/search?q=it%27s%20(a)%20*deal*!&q=&b=")
      expect(r1.status).toBe(400)
      expect(r1.json.error.code).toBe("validation_error")
      const r2 = yield* signed(cred, "GET", "/api/partner/v1/domains/search?q=b%C3%BCcher+shop")
      expect(r2.status, r2.text).toBe(200)
      const r3 = yield* signed(cred, "GET", "/api/partner/v1/availability?domain=b%C3%BCcher.de&extra=2&extra=1")
      expect(r3.status, r3.text).toBe(200)
      expect(r3.json.domain).toBe("xn--bcher-kva.de")
    }))

  it.effect("the Effect partner client signs GETs and JSON POSTs", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner()
      const server = yield* TestServer.TestServer
      const client = yield* makePartnerClient({ baseUrl: server.baseUrl, keyId: cred.key_id, secret: cred.secret })
      const res = yield* client.execute(
        HttpClientRequest.get("/api/partner/v1/availability", { urlParams: { domain: "signed-example.com" } })
      )
      expect(res.status, yield* res.text).toBe(200)
      expect((yield* res.json) as any).toMatchObject({ domain: "signed-example.com", available: true })
      const quote = yield* client.execute(
        HttpClientRequest.post("/api/partner/v1/quotes").pipe(jsonBody({ domain: "signed-example.com" }))
      )
      expect(quote.status).toBe(201)
      // A second execution of the same request gets a fresh nonce (so retries work).
      const again = yield* client.execute(HttpClientRequest.get("/api/partner/v1/pricing?domain=signed-example.com"))
      expect(again.status).toBe(200)
      const again2 = yield* client.execute(HttpClientRequest.get("/api/partner/v1/pricing?domain=signed-example.com"))
      expect(again2.status).toBe(200)
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped))
})

describe("production: HTTPS only, per-credential rate limit", () => {
  layer(
    TestServer.layer({
      NODE_ENV: "production",
      METRICS_TOKEN: "Mt4Kq8Zr2Vx6Bn1Lp9Wd3Hs7Fj5Gc0Ya",
      TEST_MODE: "true",
      TRUST_PROXY: "true",
      RATE_LIMITS: JSON.stringify({ partner_api: 3 })
    })
  )("production", (it) => {
    it.effect("refuses plain HTTP, honours the trusted proxy's X-Forwarded-Proto, limits per credential", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "signed-example.com" }])
        const cred = yield* createPartner()
        const plain = yield* signed(cred, "GET", path)
        expect(expectError(plain, 403, "forbidden").message).toContain("HTTPS")
        const https = { "x-forwarded-proto": "https" }
        const replies = []
        for (let i = 0; i < 4; i++) replies.push(yield* signed(cred, "GET", path, { headers: https }))
        expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429])
        expectError(replies[3], 429, "rate_limited")
        expect(Number(replies[3].headers.get("retry-after"))).toBeGreaterThan(0)
        // Another credential has its own budget.
        const other = yield* createPartner()
        expect((yield* signed(other, "GET", path, { headers: https })).status).toBe(200)
      }))
  })
})

describe("nonces are shared by replicas", () => {
  layer(Layer.empty)("two servers on one database", (it) => {
    it.scoped("a nonce used on one server is refused by the other", () =>
      Effect.gen(function*() {
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        const a = yield* Layer.build(TestServer.layer({}, { databaseUrl }))
        const b = yield* Layer.build(TestServer.layer({}, { databaseUrl }))
        const serverA = Context.get(a, TestServer.TestServer)
        const serverB = Context.get(b, TestServer.TestServer)
        expect(serverA.baseUrl).not.toBe(serverB.baseUrl)
        yield* seedListings([{ domain: "signed-example.com" }]).pipe(Effect.provide(a))
        const cred = yield* createPartner().pipe(Effect.provide(a))
        const nonce = crypto.randomUUID()
        const first = yield* signed(cred, "GET", path, { nonce }).pipe(Effect.provide(a))
        expect(first.status).toBe(200)
        const replay = yield* signed(cred, "GET", path, { nonce }).pipe(Effect.provide(b))
        expectError(replay, 401, "replay_detected")
        expect((yield* signed(cred, "GET", path).pipe(Effect.provide(b))).status).toBe(200)
      }), 120_000)

    it.scoped(
      "the per-credential limit is exact across replicas and concurrent requests; refused requests spend none",
      () =>
        Effect.gen(function*() {
          const databaseUrl = yield* TestServer.sharedDatabaseUrl
          const env = { RATE_LIMITS: JSON.stringify({ partner_api: 6 }) }
          const a = yield* Layer.build(TestServer.layer(env, { databaseUrl }))
          const b = yield* Layer.build(TestServer.layer(env, { databaseUrl }))
          yield* seedListings([{ domain: "signed-example.com" }]).pipe(Effect.provide(a))
          const cred = yield* createPartner().pipe(Effect.provide(a))
          // A replay and a wrong signature are refused before the limit and spend nothing.
          const nonce = crypto.randomUUID()
          expect((yield* signed(cred, "GET", path, { nonce }).pipe(Effect.provide(a))).status).toBe(200)
          expectError(yield* signed(cred, "GET", path, { nonce }).pipe(Effect.provide(b)), 401, "replay_detected")
          expectError(
            yield* signed(cred, "GET", path, { secret: "sk_wrong" }).pipe(Effect.provide(b)),
            401,
            "invalid_signature"
          )
          // 5 left in this window: 12 concurrent requests spread over both replicas get exactly 5.
          const replies = yield* Effect.all(
            Array.from({ length: 12 }, (_, i) => signed(cred, "GET", path).pipe(Effect.provide(i % 2 === 0 ? a : b))),
            { concurrency: "unbounded" }
          )
          const resets = replies.map((r) => Number(r.headers.get("ratelimit-reset")))
          // Unless the 60 s window turned over during the burst (then resets jump from ~0 to ~60),
          // exactly the 5 left are served, each with its own remaining count.
          if (Math.max(...resets) - Math.min(...resets) <= 5) {
            const served = replies.filter((r) => r.status === 200)
            expect(served.map((r) => Number(r.headers.get("ratelimit-remaining"))).sort()).toEqual([0, 1, 2, 3, 4])
            expect(replies.filter((r) => r.status === 429).length).toBe(7)
          }
          for (const r of replies.filter((r) => r.status === 429)) expectError(r, 429, "rate_limited")
        }),
      120_000
    )
  })
})
