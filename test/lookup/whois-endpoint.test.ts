import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
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

const remainingOf = (r: { headers: Headers }) => Number(r.headers.get("ratelimit-remaining"))

layer(Env, { excludeTestServices: true })("POST /api/tools/whois", (it) => {
  it.effect("201 with the stored RDAP lookup and the quota", () =>
    Effect.gen(function*() {
      const res = yield* post("/api/tools/whois", { domain: "Example.COM" })
      expect(res.status).toBe(201)
      expect(res.json).toEqual({
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
      expect(res.headers.get("ratelimit-policy")).toBe("10;w=86400")
      expect(res.headers.get("ratelimit-limit")).toBe("10")
      expect(remainingOf(res)).toBe(9)
      const reset = Number(res.headers.get("ratelimit-reset"))
      expect(reset).toBeGreaterThanOrEqual(1)
      expect(reset).toBeLessThanOrEqual(86_400)
    }))

  it.effect("falls back to WHOIS port 43 when RDAP fails", () =>
    Effect.gen(function*() {
      const { whois } = yield* Upstreams
      const res = yield* post("/api/tools/whois", { domain: "fallback.net" })
      expect(res.status).toBe(201)
      expect(res.json.lookup.result).toEqual({
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
      expect([res.json.used, res.json.remaining]).toEqual([2, 8])
      expect(whois.queries).toContain("127.0.0.3 fallback.net")
    }))

  it.effect("404 whois_not_found when neither source has the name", () =>
    Effect.gen(function*() {
      const res = yield* post("/api/tools/whois", { domain: "never-registered.com" })
      expect(res.status).toBe(404)
      expect(typedError(res).code).toBe("whois_not_found")
      expect(remainingOf(res)).toBe(7)
    }))

  it.effect("400 invalid_domain spends no quota", () =>
    Effect.gen(function*() {
      for (const domain of ["not a domain", "-bad-.com", "com", "1.2.3.4", ""]) {
        const res = yield* post("/api/tools/whois", { domain })
        expect(res.status, domain).toBe(400)
        expect(typedError(res).code, domain).toBe("invalid_domain")
      }
      const missing = yield* post("/api/tools/whois", {})
      expect(missing.status).toBe(400)
      expect(typedError(missing).code).toBe("validation_error")
      const next = yield* post("/api/tools/whois", { domain: "never-registered.org" })
      expect(remainingOf(next)).toBe(6)
    }))

  it.effect("Idempotency-Key replays the stored 201 and spends nothing", () =>
    Effect.gen(function*() {
      const headers = { "idempotency-key": "lookup-key-1" }
      const first = yield* post("/api/tools/whois", { domain: "example.com" }, headers)
      expect(first.status).toBe(201)
      expect(first.headers.get("idempotency-key")).toBe("lookup-key-1")
      expect(first.headers.get("idempotent-replayed")).toBe("false")
      expect(first.json.remaining).toBe(5)

      const again = yield* post("/api/tools/whois", { domain: "example.com" }, headers)
      expect(again.status).toBe(201)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.headers.get("idempotency-key")).toBe("lookup-key-1")
      expect(again.json).toEqual(first.json)
      expect(remainingOf(again)).toBe(5)
      expect(again.headers.get("ratelimit-policy")).toBe("10;w=86400")

      const other = yield* post("/api/tools/whois", { domain: "other.com" }, headers)
      expect(other.status).toBe(409)
      expect(typedError(other).code).toBe("conflict")
      const bad = yield* post("/api/tools/whois", { domain: "example.com" }, { "idempotency-key": "has space" })
      expect(bad.status).toBe(400)
    }))

  it.effect("the 11th anonymous lookup of the day is a 429 with Retry-After", () =>
    Effect.gen(function*() {
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
      const replay = yield* post("/api/tools/whois", { domain: "example.com" }, { "idempotency-key": "lookup-key-1" })
      expect(replay.status).toBe(201)
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
    }))
})

describe("quota counting", () => {
  layer(Env, { excludeTestServices: true })("anonymous cap", (it) => {
    it.effect("exactly 10 lookups succeed (batch whois_lookup included), the 11th is refused", () =>
      Effect.gen(function*() {
        // Batch whois_lookup goes through the same handler and the same quota.
        const batch = yield* post("/api/batch", {
          operations: [
            { id: "w1", op: "whois_lookup", params: { domain: "example.com" } },
            { id: "w2", op: "whois_lookup", params: { domain: "never-registered.com" } }
          ]
        })
        expect(batch.status).toBe(200)
        const [w1, w2] = batch.json.results
        expect(w1).toMatchObject({
          id: "w1",
          op: "whois_lookup",
          status: 201,
          body: { used: 1, cap: 10, remaining: 9 }
        })
        expect(w1.body.lookup.result.raw_source).toBe("RDAP")
        expect(w2).toMatchObject({ id: "w2", status: 404, body: { error: { code: "whois_not_found" } } })
        const statuses: Array<number> = []
        for (let i = 0; i < 9; i++) statuses.push((yield* post("/api/tools/whois", { domain: "example.com" })).status)
        expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 201, 201, 429])
      }))
  })
})

describe("bearer quota", () => {
  layer(Env, { excludeTestServices: true })("a caller with an OAuth access token", (it) => {
    it.effect("gets the higher daily cap (BEARER_WHOIS_CAP, default 100), counted per user", () =>
      Effect.gen(function*() {
        const token = yield* accessToken([])
        const auth = { authorization: `Bearer ${token}` }
        const first = yield* post("/api/tools/whois", { domain: "example.com" }, auth)
        expect(first.status).toBe(201)
        expect(first.json).toMatchObject({ used: 1, cap: 100, remaining: 99 })
        expect(first.headers.get("ratelimit-limit")).toBe("100")
        expect(first.headers.get("ratelimit-policy")).toBe("100;w=86400")
        // Anonymous callers from the same IP keep their own cap of 10.
        const anonymous = yield* post("/api/tools/whois", { domain: "example.com" })
        expect(anonymous.json).toMatchObject({ cap: 10 })
        // An invalid token is refused, not downgraded to anonymous.
        const bad = yield* post("/api/tools/whois", { domain: "example.com" }, { authorization: "Bearer not-a-token" })
        expect(bad.status).toBe(401)
        expect(bad.headers.get("www-authenticate")).toContain("error=\"invalid_token\"")
      }))
  })
})
