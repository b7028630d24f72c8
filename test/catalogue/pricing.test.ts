import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { RateLimitedError } from "../../src/platform/http/Errors.js"
import { apiClient } from "../support/ApiClient.js"
import { get } from "../support/http.js"
import * as TestServer from "../support/TestServer.js"

layer(TestServer.layer())("GET /api/pricing/tld", (it) => {
  it.effect("answers the price in cents for each operation", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const [register, response] = yield* client.catalogue.getTldPrice({
        urlParams: { tld: "com", op: "register" },
        withResponse: true
      })
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toContain("application/json")
      expect(register).toEqual({ tld: "com", op: "register", priceCents: 1099 })

      const renew = yield* client.catalogue.getTldPrice({ urlParams: { tld: "com", op: "renew" } })
      expect(renew).toEqual({ tld: "com", op: "renew", priceCents: 1299 })
      const restore = yield* client.catalogue.getTldPrice({ urlParams: { tld: "com", op: "restore" } })
      expect(restore.priceCents).toBeTypeOf("number")
    }))

  it.effect("defaults op to transfer and normalises the tld", () =>
    Effect.gen(function*() {
      const reply = yield* get("/api/pricing/tld?tld=.COM")
      expect(reply.status).toBe(200)
      expect(reply.json).toEqual({ tld: "com", op: "transfer", priceCents: 1099 })
    }))

  it.effect("answers priceCents null for an unsupported TLD or operation", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const unknownTld = yield* client.catalogue.getTldPrice({ urlParams: { tld: "doesnotexist", op: "register" } })
      expect(unknownTld).toEqual({ tld: "doesnotexist", op: "register", priceCents: null })
      // .uk has no restore in the registry rules, so no restore price.
      const noRestore = yield* client.catalogue.getTldPrice({ urlParams: { tld: "uk", op: "restore" } })
      expect(noRestore).toEqual({ tld: "uk", op: "restore", priceCents: null })
    }))

  it.effect("400 in the legacy shape for a missing tld, an empty tld or a bad op", () =>
    Effect.gen(function*() {
      for (
        const path of [
          "/api/pricing/tld",
          "/api/pricing/tld?op=register",
          "/api/pricing/tld?tld=",
          "/api/pricing/tld?tld=com&op=buy",
          "/api/pricing/tld?tld=c%24m"
        ]
      ) {
        const reply = yield* get(path)
        expect(reply.status, path).toBe(400)
        expect(Object.keys(reply.json), path).toEqual(["error"])
        expect(reply.json.error, path).toBeTypeOf("string")
        expect(reply.headers.get("x-request-id"), path).toMatch(/^req_/)
      }
      const badOp = yield* get("/api/pricing/tld?tld=com&op=buy")
      expect(badOp.json.error).toContain("op")
      expect(badOp.json.error).toContain("register")
      const missing = yield* get("/api/pricing/tld")
      expect(missing.json.error).toContain("tld")
    }))

  it.effect("carries the RateLimit headers of a 120/min policy", () =>
    Effect.gen(function*() {
      const reply = yield* get("/api/pricing/tld?tld=net")
      expect(reply.headers.get("ratelimit-limit")).toBe("120")
      expect(reply.headers.get("ratelimit-policy")).toBe("120;w=60")
      const remaining = Number(reply.headers.get("ratelimit-remaining"))
      expect(remaining).toBeGreaterThanOrEqual(0)
      expect(remaining).toBeLessThan(120)
      const reset = Number(reply.headers.get("ratelimit-reset"))
      expect(reset).toBeGreaterThanOrEqual(1)
      expect(reset).toBeLessThanOrEqual(60)
      const next = yield* get("/api/pricing/tld?tld=net")
      expect(Number(next.headers.get("ratelimit-remaining"))).toBe(remaining - 1)
    }))
})

describe("rate limit exhaustion", () => {
  layer(TestServer.layer({ RATE_LIMITS: JSON.stringify({ pricing_tld: 3 }) }))("with a limit of 3", (it) => {
    it.effect("the 4th request in the window is a 429 rate_limited with Retry-After", () =>
      Effect.gen(function*() {
        const replies = []
        for (let i = 0; i < 4; i++) replies.push(yield* get("/api/pricing/tld?tld=org"))
        expect(replies.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200])
        expect(replies.slice(0, 3).map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0"])
        const refused = replies[3]
        expect(refused.status).toBe(429)
        expect(refused.json.error.code).toBe("rate_limited")
        expect(refused.json.error.request_id).toBe(refused.headers.get("x-request-id"))
        const retryAfter = Number(refused.headers.get("retry-after"))
        expect(retryAfter).toBeGreaterThanOrEqual(1)
        expect(retryAfter).toBeLessThanOrEqual(60)
        expect(refused.headers.get("ratelimit-remaining")).toBe("0")
        expect(refused.headers.get("ratelimit-limit")).toBe("3")
        // Through the typed client, the refusal is the RateLimited error.
        const client = yield* apiClient()
        const typed = yield* Effect.flip(client.catalogue.getTldPrice({ urlParams: { tld: "org", op: "transfer" } }))
        expect(typed).toBeInstanceOf(RateLimitedError)
        expect(typed).toMatchObject({ code: "rate_limited" })
      }))
  })
})
