import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Redis } from "ioredis"
import { get } from "../../support/http.js"
import { REDIS_URL, redisAnswers } from "../../support/TestRedis.js"
import * as TestServer from "../../support/TestServer.js"

const redisUp = await redisAnswers()

if (!redisUp) console.warn(`Redis not reachable at ${REDIS_URL}: the Redis rate-limit store tests are skipped`)

describe.runIf(redisUp)("rate limits in Redis (REDIS_URL)", () => {
  const limits = JSON.stringify({ pricing_tld: 4 })
  const ip = `redis-test-${Date.now()}`
  layer(TestServer.layer({ REDIS_URL, RATE_LIMITS: limits, TRUST_PROXY: "1" }))("first replica", (it) => {
    it.effect("counts in Redis: increments made by any other replica count in the same window", () =>
      Effect.gen(function*() {
        const headers = { "x-forwarded-for": ip }
        const first = yield* get("/api/pricing/tld?tld=com", headers)
        if (Number(first.headers.get("ratelimit-reset")) < 3) return // window about to roll: nothing to prove this time
        expect(first.headers.get("ratelimit-remaining")).toBe("3")
        const redis = new Redis(REDIS_URL)
        const keys = yield* Effect.promise(() => redis.keys(`ratelimit:pricing_tld|${ip}:*`))
        expect(keys).toHaveLength(1)
        const ttl = yield* Effect.promise(() => redis.pttl(keys[0]))
        expect(ttl).toBeGreaterThan(0)
        expect(ttl).toBeLessThanOrEqual(120_000)
        // Three more from "another replica" (a direct increment as the service would do it)...
        yield* Effect.promise(() => redis.incrby(keys[0], 3))
        redis.disconnect()
        // ...so this one is the 5th in the window.
        const refused = yield* get("/api/pricing/tld?tld=com", headers)
        expect(refused.status).toBe(429)
        expect(refused.json.error.code).toBe("rate_limited")
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
      }))
  })
})
