/**
 * The limiter's ordinal leases on a real database (src/platform/http/RateLimit.ts,
 * RateLimitLease.ts): two `RateLimiterLive` instances, each with its own pool — two replicas as far
 * as `rate_limit_counters` can tell — sharing one database (the embedded one, or a fresh
 * PostgreSQL database when DATABASE_URL is set).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { Redis } from "ioredis"
import migrateRateLimits from "../../../migrations/0001_rate_limits.js"
import { AppConfigLive } from "../../../src/platform/Config.js"
import { pgLayer } from "../../../src/platform/db/Database.js"
import { makePeek, policy, RateLimiter, RateLimiterLive } from "../../../src/platform/http/RateLimit.js"
import { blockCap } from "../../../src/platform/http/RateLimitLease.js"
import { REDIS_URL, redisAnswers } from "../../support/TestRedis.js"
import { baseEnv, sharedDatabaseUrl } from "../../support/TestServer.js"

/** One "replica": a limiter with its own pool on `databaseUrl` (counting in Redis with `redisUrl`). */
const replica = (databaseUrl: string, redisUrl?: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      RateLimiterLive.pipe(
        Layer.provideMerge(pgLayer({ url: Redacted.make(databaseUrl) }, 4)),
        Layer.provide(AppConfigLive)
      )
    ).pipe(
      Effect.withConfigProvider(
        ConfigProvider.fromMap(
          new Map(Object.entries({
            ...baseEnv,
            DATABASE_URL: databaseUrl,
            ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl })
          }))
        )
      )
    )
    return { limiter: Context.get(context, RateLimiter), sql: Context.get(context, SqlClient.SqlClient) }
  })

// Windows of ~115 days, so a test never straddles two.
const WINDOW_SECONDS = 10_000_000

const redisUp = await redisAnswers()

describe("rate-limit leases on a shared database", () => {
  it.scopedLive(
    "sequential requests: far fewer increments than requests, Remaining as before; two replicas keep within the bound",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* sharedDatabaseUrl
        const a = yield* replica(databaseUrl)
        const b = yield* replica(databaseUrl)
        yield* Effect.provideService(migrateRateLimits, SqlClient.SqlClient, a.sql)
        const countOf = (bucket: string) =>
          Effect.map(
            a.sql<{ count: number }>`select count from rate_limit_counters where bucket = ${bucket}`,
            (rows) => rows[0]?.count
          )

        // (1) 200 requests one after another: blocks 1, 2, 4, …, 128 — 8 increments, count 255.
        const big = policy("lease_seq", 1_000_000, WINDOW_SECONDS)
        const remaining: Array<number> = []
        for (let i = 0; i < 200; i++) remaining.push((yield* a.limiter.consume(big, "k1")).remaining)
        expect(remaining).toEqual(Array.from({ length: 200 }, (_, i) => 1_000_000 - i - 1))
        expect(yield* countOf("lease_seq|k1")).toBe(255)

        // A peek (the WHOIS replay's headers) does not count this replica's leased, unused ordinals
        // as spent: 2 requests, blocks 1 + 2 stored.
        const peekOf = (r: typeof a) =>
          makePeek.pipe(
            Effect.provideService(RateLimiter, r.limiter),
            Effect.provideService(SqlClient.SqlClient, r.sql)
          )
        const daily = policy("lease_peek", 100, WINDOW_SECONDS)
        yield* a.limiter.consume(daily, "k0")
        expect((yield* a.limiter.consume(daily, "k0")).remaining).toBe(98)
        expect(yield* countOf("lease_peek|k0")).toBe(3)
        expect((yield* (yield* peekOf(a))(daily, "k0")).remaining).toBe(98)
        expect((yield* (yield* peekOf(b))(daily, "k0")).remaining).toBe(97) // a's unused one reads as spent

        // (2) Limit 120 over two replicas, alternating, 300 requests: at most 120 admitted, each
        // with its own Remaining, and at least 120 - (2 - 1) × cap.
        const shared = policy("lease_shared", 120, WINDOW_SECONDS)
        const decisions = []
        for (let i = 0; i < 300; i++) decisions.push(yield* (i % 2 === 0 ? a : b).limiter.consume(shared, "k2"))
        const admitted = decisions.filter((d) => d.allowed)
        expect(admitted.length).toBeLessThanOrEqual(120)
        expect(admitted.length).toBeGreaterThanOrEqual(120 - blockCap(120))
        expect(new Set(admitted.map((d) => d.remaining)).size).toBe(admitted.length)
        expect(decisions.slice(-2).map((d) => d.allowed)).toEqual([false, false])
        expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0)).toBe(true)

        // (3) The same, with both replicas' requests in flight at once.
        const burst = policy("lease_burst", 120, WINDOW_SECONDS)
        const concurrent = yield* Effect.all(
          Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? a : b).limiter.consume(burst, "k3")),
          { concurrency: 40 }
        )
        const admittedBurst = concurrent.filter((d) => d.allowed)
        expect(admittedBurst.length).toBeLessThanOrEqual(120)
        expect(admittedBurst.length).toBeGreaterThanOrEqual(120 - blockCap(120))
        expect(new Set(admittedBurst.map((d) => d.remaining)).size).toBe(admittedBurst.length)
      }),
    { timeout: 120_000 }
  )

  it.scopedLive.runIf(redisUp)(
    "with REDIS_URL the same leases: INCRBY n, two replicas within the bound",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* sharedDatabaseUrl
        const a = yield* replica(databaseUrl, REDIS_URL)
        const b = yield* replica(databaseUrl, REDIS_URL)
        const key = `lease-${Date.now()}-${Math.random()}`
        const big = policy("lease_redis_seq", 1_000_000, WINDOW_SECONDS)
        for (let i = 0; i < 200; i++) expect((yield* a.limiter.consume(big, key)).remaining).toBe(1_000_000 - i - 1)
        const redis = new Redis(REDIS_URL)
        const keys = yield* Effect.promise(() => redis.keys(`ratelimit:lease_redis_seq|${key}:*`))
        expect(yield* Effect.promise(() => redis.get(keys[0]!))).toBe("255") // 8 increments for 200 requests
        // These windows outlive the test by months: remove its keys afterwards.
        yield* Effect.addFinalizer(() =>
          Effect.promise(async () => {
            const ours = await redis.keys(`ratelimit:lease_redis_*|${key}:*`)
            if (ours.length > 0) await redis.del(...ours)
            redis.disconnect()
          })
        )

        const shared = policy("lease_redis_shared", 120, WINDOW_SECONDS)
        const decisions = []
        for (let i = 0; i < 300; i++) decisions.push(yield* (i % 3 === 0 ? a : b).limiter.consume(shared, key))
        const admitted = decisions.filter((d) => d.allowed)
        expect(admitted.length).toBeLessThanOrEqual(120)
        expect(admitted.length).toBeGreaterThanOrEqual(120 - blockCap(120))
        expect(new Set(admitted.map((d) => d.remaining)).size).toBe(admitted.length)
      })
  )
})
