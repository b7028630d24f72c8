/**
 * POST /api/tools/whois against loopback RDAP and WHOIS servers. Answers are read through the
 * typed client (HttpApiClient.make(Api)): WhoisResponse decodes them, the 201 and the RateLimit /
 * Idempotency headers come with `withResponse`; refusals are the typed InvalidDomain and
 * ConflictError. Raw requests stay where the test is about the wire of an error answer (its
 * RateLimit-Remaining, Retry-After, WWW-Authenticate) and for a body the typed client cannot send.
 * The quota is shared by the tests of a layer, so every call counts: none is doubled.
 */
import type { HttpClientResponse } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Either, Layer } from "effect"
import type { BatchResult } from "../../src/batch/Api.js"
import { InvalidDomain } from "../../src/platform/http/DomainInput.js"
import { InvalidIdempotencyKey } from "../../src/platform/http/IdempotencyKey.js"
import { apiClient, expectFailure, wireOf } from "../support/ApiClient.js"
import { post, typedError } from "../support/http.js"
import { accessToken } from "../support/identity.js"
import * as RdapServer from "../support/RdapServer.js"
import * as TestServer from "../support/TestServer.js"
import * as WhoisServer from "../support/WhoisServer.js"

class Upstreams extends Context.Tag("test/Upstreams")<Upstreams, {
  readonly rdap: RdapServer.RdapServerShape
  readonly whois: WhoisServer.WhoisServerShape
}>() {}

/** Loopback RDAP (com, org → registry; net → a failing server) and WHOIS (IANA, registry, registrar). */
const Env = Layer.unwrapScoped(
  Effect.gen(function*() {
    const rdap = yield* RdapServer.start({ tlds: { com: "/registry/", org: "/registry/", net: "/down/" } })
    rdap.answer("/registry/domain/example.com", {
      json: RdapServer.domainObject("example.com", {
        registrar: "Example Registrar, Inc.",
        registrant: { fn: "", org: "" },
        redactedRegistrant: true,
        abuseEmail: "abuse@registrar.test",
        status: ["client transfer prohibited"],
        nameservers: ["a.iana-servers.net", "b.iana-servers.net"],
        created: "1995-08-14T04:00:00Z",
        expires: "2030-08-13T04:00:00Z",
        changed: "2025-08-14T07:01:34Z"
      })
    })
    rdap.answer("/down/domain/fallback.net", { status: 503, json: { errorCode: 503 } })
    const whois = yield* WhoisServer.start({
      "127.0.0.1": (q) => WhoisServer.ianaReferral(q.slice(q.lastIndexOf(".") + 1), "127.0.0.2"),
      "127.0.0.2": (q) => (q === "fallback.net" ? WhoisServer.thinRegistry(q, "127.0.0.3") : WhoisServer.noMatch(q)),
      "127.0.0.3": (q) => WhoisServer.registrarRecord(q)
    })
    return Layer.merge(
      TestServer.layer({
        RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
        RDAP_TIMEOUT: "2 seconds",
        WHOIS_REFERRAL_SERVER: "127.0.0.1",
        WHOIS_PORT: String(whois.port),
        WHOIS_TIMEOUT: "2 seconds"
      }),
      Layer.succeed(Upstreams, { rdap, whois })
    )
  })
)

/**
 * A batch operation's body: the single call's wire JSON, embedded as is (`body` is Schema.Unknown
 * in BatchResult), so it is read untyped; the envelope around it is decoded by BatchResponse.
 */
const bodyOf = (result: BatchResult): any => result.body

const remainingOf = (r: { headers: Headers }) => Number(r.headers.get("ratelimit-remaining"))

/** The JSON of a typed call's answer as sent (the response's bytes, which the client read and keeps). */
const wireJson = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(response.arrayBuffer, (bytes): unknown => JSON.parse(new TextDecoder().decode(bytes)))

/** A typed lookup, as its decoded answer and its response (status and headers). */
const lookup = (domain: string, options: Parameters<typeof apiClient>[0] = {}) =>
  Effect.flatMap(
    apiClient(options),
    (client) => client.lookup.whois({ payload: { domain }, headers: {}, withResponse: true })
  )

layer(Env, { excludeTestServices: true })("POST /api/tools/whois", (it) => {
  it.effect("201 with the stored RDAP lookup and the quota", () =>
    Effect.gen(function*() {
      const [body, res] = yield* lookup("Example.COM")
      expect(res.status).toBe(201)
      // No other keys on the wire (decoding would drop them): the same answer's bytes.
      expect(yield* wireJson(res)).toEqual(body)
      expect(body).toEqual({
        lookup: {
          id: expect.stringMatching(/^lkp_[0-9a-z]{26}$/),
          domain: "example.com",
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
          result: {
            domain: "example.com",
            status: "client transfer prohibited",
            registrar: "Example Registrar, Inc.",
            registrant: "REDACTED FOR PRIVACY",
            creation_date: "1995-08-14T04:00:00.000Z",
            expiration_date: "2030-08-13T04:00:00.000Z",
            update_date: "2025-08-14T07:01:34.000Z",
            nameservers: ["a.iana-servers.net", "b.iana-servers.net"],
            emails: ["abuse@registrar.test"],
            raw_source: "RDAP"
          }
        },
        used: 1,
        cap: 10,
        remaining: 9
      })
      expect(res.headers["ratelimit-policy"]).toBe("10;w=86400")
      expect(res.headers["ratelimit-limit"]).toBe("10")
      expect(Number(res.headers["ratelimit-remaining"])).toBe(9)
      const reset = Number(res.headers["ratelimit-reset"])
      expect(reset).toBeGreaterThanOrEqual(1)
      expect(reset).toBeLessThanOrEqual(86_400)
    }))

  it.effect("falls back to WHOIS port 43 when RDAP fails", () =>
    Effect.gen(function*() {
      const { whois } = yield* Upstreams
      const [body, res] = yield* lookup("fallback.net")
      expect(res.status).toBe(201)
      expect(body.lookup.result).toEqual({
        domain: "fallback.net",
        status: "client delete prohibited, client transfer prohibited",
        registrar: "Example Registrar, Inc.",
        registrant: "Example Holdings",
        creation_date: "1995-08-14T04:00:00.000Z",
        expiration_date: "2030-08-13T04:00:00.000Z",
        update_date: "2024-08-14T07:01:34.000Z",
        nameservers: ["ns1.example.net", "ns2.example.net"],
        emails: ["abuse@registrar.test", "hostmaster@fallback.net", "tech@fallback.net"],
        raw_source: "WHOIS"
      })
      expect([body.used, body.remaining]).toEqual([2, 8])
      expect(whois.queries).toContain("127.0.0.3 fallback.net")
    }))

  it.effect("404 whois_not_found when neither source has the name", () =>
    Effect.gen(function*() {
      // Raw: the RateLimit-Remaining of an error answer is only on the wire.
      const res = yield* post("/api/tools/whois", { domain: "never-registered.com" })
      expect(res.status).toBe(404)
      expect(typedError(res).code).toBe("whois_not_found")
      expect(remainingOf(res)).toBe(7)
    }))

  it.effect("400 invalid_domain spends no quota", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      for (const domain of ["not a domain", "-bad-.com", "com", "1.2.3.4", ""]) {
        const e = yield* Effect.flip(client.lookup.whois({ payload: { domain }, headers: {} }))
        expect(e, domain).toBeInstanceOf(InvalidDomain)
        expect(wireOf(e), domain).toEqual({ status: 400, code: "invalid_domain" })
      }
      // Raw: the typed client cannot send a body without its domain.
      const missing = yield* post("/api/tools/whois", {})
      expect(missing.status).toBe(400)
      expect(typedError(missing).code).toBe("validation_error")
      // Raw: the RateLimit-Remaining of the 404 is only on the wire.
      const next = yield* post("/api/tools/whois", { domain: "never-registered.org" })
      expect(remainingOf(next)).toBe(6)
    }))

  it.effect("Idempotency-Key replays the stored 201 and spends nothing", () =>
    Effect.gen(function*() {
      const headers = { "idempotency-key": "lookup-key-1" }
      const [first, firstRes] = yield* lookup("example.com", { headers })
      expect(firstRes.status).toBe(201)
      expect(firstRes.headers["idempotency-key"]).toBe("lookup-key-1")
      expect(firstRes.headers["idempotent-replayed"]).toBe("false")
      expect(first.remaining).toBe(5)

      const [again, againRes] = yield* lookup("example.com", { headers })
      expect(againRes.status).toBe(201)
      expect(againRes.headers["idempotent-replayed"]).toBe("true")
      expect(againRes.headers["idempotency-key"]).toBe("lookup-key-1")
      expect(again).toEqual(first)
      // The replay is the stored answer as sent, no key more or less.
      expect(yield* wireJson(againRes)).toEqual(yield* wireJson(firstRes))
      expect(Number(againRes.headers["ratelimit-remaining"])).toBe(5)
      expect(againRes.headers["ratelimit-policy"]).toBe("10;w=86400")

      // Conflict: the typed ConflictError, its wire code conflict.
      yield* expectFailure(lookup("other.com", { headers }), 409, "conflict")
      const bad = yield* Effect.flip(lookup("example.com", { headers: { "idempotency-key": "has space" } }))
      expect(bad).toBeInstanceOf(InvalidIdempotencyKey)
      expect(wireOf(bad)).toEqual({ status: 400, code: "invalid_idempotency_key" })
    }))

  it.effect("the 11th anonymous lookup of the day is a 429 with Retry-After", () =>
    Effect.gen(function*() {
      // Raw: the 429's RateLimit and Retry-After headers are only on the wire.
      let last = yield* post("/api/tools/whois", { domain: "example.com" })
      while (last.status === 201) last = yield* post("/api/tools/whois", { domain: "example.com" })
      expect(last.status).toBe(429)
      expect(typedError(last).code).toBe("rate_limited")
      expect(last.headers.get("ratelimit-remaining")).toBe("0")
      expect(last.headers.get("ratelimit-limit")).toBe("10")
      const retryAfter = Number(last.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(86_400)
      // A replay of an earlier key still answers, spending nothing.
      const [, replay] = yield* lookup("example.com", { headers: { "idempotency-key": "lookup-key-1" } })
      expect(replay.status).toBe(201)
      expect(replay.headers["idempotent-replayed"]).toBe("true")
    }))
})

describe("quota counting", () => {
  layer(Env, { excludeTestServices: true })("anonymous cap", (it) => {
    it.effect("exactly 10 lookups succeed (batch whois_lookup included), the 11th is refused", () =>
      Effect.gen(function*() {
        // Batch whois_lookup goes through the same handler and the same quota.
        const client = yield* apiClient()
        const [batch, response] = yield* client.batch.runBatch({
          payload: {
            operations: [
              { id: "w1", op: "whois_lookup", params: { domain: "example.com" } },
              { id: "w2", op: "whois_lookup", params: { domain: "never-registered.com" } }
            ]
          },
          withResponse: true
        })
        expect(response.status).toBe(200)
        const [w1, w2] = batch.results
        expect(w1).toMatchObject({
          id: "w1",
          op: "whois_lookup",
          status: 201,
          body: { used: 1, cap: 10, remaining: 9 }
        })
        expect(bodyOf(w1!).lookup.result.raw_source).toBe("RDAP")
        expect(w2).toMatchObject({ id: "w2", status: 404, body: { error: { code: "whois_not_found" } } })
        const statuses: Array<number> = []
        for (let i = 0; i < 9; i++) {
          const result = yield* Effect.either(
            client.lookup.whois({ payload: { domain: "example.com" }, headers: {}, withResponse: true })
          )
          statuses.push(Either.match(result, { onLeft: (e) => wireOf(e).status, onRight: ([, r]) => r.status }))
        }
        expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 201, 201, 429])
      }))
  })
})

describe("bearer quota", () => {
  layer(Env, { excludeTestServices: true })("a caller with an OAuth access token", (it) => {
    it.effect("gets the higher daily cap (BEARER_WHOIS_CAP, default 100), counted per user", () =>
      Effect.gen(function*() {
        const token = yield* accessToken([])
        const [first, response] = yield* lookup("example.com", { bearer: token })
        expect(response.status).toBe(201)
        expect(first).toMatchObject({ used: 1, cap: 100, remaining: 99 })
        expect(response.headers["ratelimit-limit"]).toBe("100")
        expect(response.headers["ratelimit-policy"]).toBe("100;w=86400")
        // Anonymous callers from the same IP keep their own cap of 10.
        const [anonymous] = yield* lookup("example.com")
        expect(anonymous).toMatchObject({ cap: 10 })
        // An invalid token is refused, not downgraded to anonymous. Raw: WWW-Authenticate is the wire.
        const bad = yield* post("/api/tools/whois", { domain: "example.com" }, { authorization: "Bearer not-a-token" })
        expect(bad.status).toBe(401)
        expect(bad.headers.get("www-authenticate")).toContain("error=\"invalid_token\"")
      }))
  })
})
