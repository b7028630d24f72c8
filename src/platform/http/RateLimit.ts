/**
 * Per-IP, per-operation fixed-window rate limiting, shared by every replica.
 *
 * The count lives in PostgreSQL (`rate_limit_counters`, one row per bucket and window) — or in
 * Redis when REDIS_URL is set — so the limit holds however requests are spread over replicas.
 * Each request gets its own ordinal in its window and is allowed iff ordinal ≤ limit, so no
 * request past the limit is ever admitted, by any replica. Two in-process paths keep it cheap:
 *
 * - leases (RateLimitLease.ts): a process takes ordinals in blocks, one `count = count + n` (or
 *   INCRBY n) per block, and numbers its requests from the block with no I/O. Blocks start at 1
 *   in a window and double, up to max(1, ⌊limit / 10⌋) = cap; requests waiting for a block share
 *   one statement (group commit). The price is bounded under-admission: ordinals a replica leased
 *   but did not use, so once a request is refused, at least limit − (replicas − 1) × cap were
 *   admitted in the window (one replica: exactly the limit). `RateLimit-Remaining` is limit −
 *   ordinal, as before; the stored count runs ahead of the requests by the unused ordinals
 *   (`makePeek` subtracts this process's own);
 * - known-denied: once a window's count is past the limit, further requests in that window are
 *   refused locally (counts only grow within a window).
 *
 * The signed Partner API counts its requests one by one in its own admission statement
 * (`countedElsewhere`, `windowOf`, `settle`); those ordinals come from the same counter.
 *
 * Every limited response carries `RateLimit-Limit/Remaining/Reset/Policy`; a refusal is a 429
 * `rate_limited` with `Retry-After`.
 *
 * When the shared store cannot be reached (database or Redis down, or slower than
 * `STORE_TIMEOUT`), the limit does not fail open: the process counts in memory for the rest of the
 * outage (per process, so with N replicas a caller may get up to N × the limit), and goes back to
 * the shared store as soon as it answers again.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { Fragment } from "@effect/sql/Statement"
import { Clock, Context, Data, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Redis } from "ioredis"
import { AppConfig } from "../Config.js"
import { janitorOf } from "../jobs/Janitor.js"
import { recordRateLimitDenial } from "../observability/Metrics.js"
import { runWithin } from "../outbound/Deadline.js"
import { RateLimitedError } from "./Errors.js"
import { makeLeases } from "./RateLimitLease.js"
import { addResponseHeaders } from "./ResponseHeaders.js"

/** The shared counter store did not answer in time: the limiter counts in this process meanwhile. */
class StoreTimedOut extends Data.TaggedError("RateLimitStoreTimedOut")<{ readonly message: string }> {}

export interface RateLimitPolicy {
  /** Operation id; `RATE_LIMIT_<ID>` (uppercased) overrides `limit`. */
  readonly id: string
  readonly limit: number
  readonly windowSeconds: number
}

export const policy = (id: string, limit: number, windowSeconds: number): RateLimitPolicy => ({
  id,
  limit,
  windowSeconds
})

export interface RateLimitDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets. */
  readonly resetSeconds: number
  readonly windowSeconds: number
}

/**
 * One key's current window of a policy, for a caller that adds the request to the shared counter
 * in a statement of its own (the signed Partner API's admission statement, see `countedElsewhere`):
 * it places `countRequests` there, then calls `settle` with the request's ordinal in that window.
 */
export interface RateLimitWindow {
  readonly bucket: string
  /** Unix seconds, the counter row's `window_start`. */
  readonly windowStart: number
  readonly expiresAt: Date
  /** Already over the limit in this window (known in this process): refuse without counting. */
  readonly knownDenied: boolean
  readonly policy: RateLimitPolicy
  readonly limit: number
  readonly resetSeconds: number
  readonly slot: string
  readonly windowEnd: number
}

export interface RateLimiterShape {
  /** Count one request of `key` against `policy` (with configured overrides applied). */
  readonly consume: (policy: RateLimitPolicy, key: string) => Effect.Effect<RateLimitDecision>
  /** The effective limit of a policy after configuration overrides. */
  readonly limitOf: (policy: RateLimitPolicy) => number
  /** Ordinals of `key`'s window at `now` (ms) this process leased and has not used (RateLimitLease.ts). */
  readonly leasedUnused: (policy: RateLimitPolicy, key: string, now: number) => number
  /**
   * True when the shared counter is PostgreSQL's `rate_limit_counters`, so a caller may count a
   * request in its own statement (`windowOf` + `settle`) instead of `consume`'s; false with Redis.
   */
  readonly countedElsewhere: boolean
  /** The window a request of `key` falls in at `now` (ms). */
  readonly windowOf: (policy: RateLimitPolicy, key: string, now: number) => RateLimitWindow
  /** The decision for the request counted elsewhere as the `count`-th of its window (undefined: known denied, not counted). */
  readonly settle: (window: RateLimitWindow, count: number | undefined) => RateLimitDecision
}

export class RateLimiter extends Context.Tag("app/RateLimiter")<RateLimiter, RateLimiterShape>() {
  /**
   * The stand-in for a rule's test: the same limiter over a counter in this process (one replica,
   * so exactly `limit` requests a window), no database, no overrides.
   */
  static readonly Test: Layer.Layer<RateLimiter> = Layer.sync(RateLimiter, () => {
    const count = makeLocalCounter()
    return makeLimiter(
      (bucket, windowStart, n, expiresAt) =>
        Effect.map(Clock.currentTimeMillis, (now) => count(`${bucket}|${windowStart}`, n, expiresAt.getTime(), now)),
      {},
      false
    )
  })
}

/** Adds `n` to a bucket's counter for one window and returns the new total. */
type Increment = (bucket: string, windowStart: number, n: number, expiresAt: Date) => Effect.Effect<number, unknown>

const Count = Schema.Struct({ count: Schema.Number })

/**
 * The counters' part of a statement that counts its requests itself (`countedElsewhere`; the
 * signed Partner API's admission statement, src/partner/Repo.ts), a CTE body: adds the rows of
 * `requests` (a relation of the caller's statement with `bucket`, `window_start` and
 * `expires_ms`, one row a request) to their counters, upserted in key order so two writers never
 * lock counters in opposite orders, and returns each counter's `bucket, window_start, count`.
 * This module owns `rate_limit_counters`; a caller places this fragment, it writes no SQL of it.
 */
export const countRequests = (sql: SqlClient.SqlClient, requests: Fragment): Fragment =>
  sql`insert into rate_limit_counters (bucket, window_start, count, expires_at)
      select bucket, window_start, count(*), to_timestamp(max(expires_ms) / 1000.0)
      from ${requests} group by bucket, window_start order by bucket, window_start
      on conflict (bucket, window_start) do update set count = rate_limit_counters.count + excluded.count
      returning bucket, window_start, count`

const postgresCounter = Effect.map(SqlClient.SqlClient, (sql): Increment => {
  const add = SqlSchema.single({
    Request: Schema.Struct({
      bucket: Schema.String,
      windowStart: Schema.Number,
      n: Schema.Number,
      expiresAt: Schema.DateFromSelf
    }),
    Result: Count,
    execute: (r) =>
      sql`
        insert into rate_limit_counters (bucket, window_start, count, expires_at)
        values (${r.bucket}, ${r.windowStart}, ${r.n}, ${r.expiresAt})
        on conflict (bucket, window_start)
        do update set count = rate_limit_counters.count + excluded.count
        returning count`
  })
  return (bucket, windowStart, n, expiresAt) =>
    Effect.map(add({ bucket, windowStart, n, expiresAt }), (row) => row.count)
})

/** INCRBY, and set the expiry when this increment created the key, atomically. */
const INCREMENT_SCRIPT = `local c = redis.call('INCRBY', KEYS[1], ARGV[1])
if c == tonumber(ARGV[1]) then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return c`

const redisCounter = (url: string) =>
  Effect.gen(function*() {
    const redis = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const r = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: true })
        // Connection errors surface as failed increments (→ the in-process fallback), not as noise.
        r.on("error", () => undefined)
        return r
      }),
      (r) => Effect.promise(() => r.quit().catch(() => undefined))
    )
    const increment: Increment = (bucket, windowStart, n, expiresAt) =>
      Effect.tryPromise(() =>
        redis.eval(INCREMENT_SCRIPT, 1, `ratelimit:${bucket}:${windowStart}`, n, expiresAt.getTime()) as Promise<number>
      )
    return increment
  })

/** A shared-store increment slower than this (ms) counts in memory instead (the request is not held up). */
const STORE_TIMEOUT_MS = 1000

/**
 * The in-process fallback counter: same buckets and windows as the shared store, kept only while
 * the store is unreachable. Entries of past windows are pruned as the map grows.
 */
export const makeLocalCounter = () => {
  const counts = new Map<string, { count: number; expiresAt: number }>()
  return (slot: string, n: number, expiresAt: number, now: number): number => {
    if (counts.size > 10_000) { for (const [k, v] of counts) if (v.expiresAt <= now) counts.delete(k) }
    const entry = counts.get(slot)
    if (entry === undefined || entry.expiresAt <= now) {
      counts.set(slot, { count: n, expiresAt })
      return n
    }
    entry.count += n
    return entry.count
  }
}

/**
 * The limiter over a shared counter (`increment`): leases, known-denied windows and the in-process
 * fallback. `overrides` are `RATE_LIMIT_<ID>` (policy id → limit); `countedElsewhere` says the
 * counter is PostgreSQL's, so the signed path may count in its own statement.
 */
const makeLimiter = (
  increment: Increment,
  overrides: Readonly<Record<string, number>>,
  countedElsewhere: boolean
): RateLimiterShape => {
  const localIncrement = makeLocalCounter()
  let lastWarning = 0
  /** slot → window end (ms); entries of past windows are pruned as new ones arrive. */
  const denied = new Map<string, number>()

  const limitOf = (p: RateLimitPolicy) => overrides[p.id] ?? p.limit

  const windowOf = (p: RateLimitPolicy, key: string, now: number): RateLimitWindow => {
    const windowMs = p.windowSeconds * 1000
    const windowStart = Math.floor(now / windowMs) * windowMs
    const windowEnd = windowStart + windowMs
    const bucket = `${p.id}|${key}`
    const slot = `${bucket}|${windowStart}`
    return {
      bucket,
      windowStart: windowStart / 1000,
      expiresAt: new Date(windowEnd + 60_000),
      knownDenied: denied.has(slot),
      policy: p,
      limit: limitOf(p),
      resetSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
      slot,
      windowEnd
    }
  }

  const settle = (w: RateLimitWindow, count: number | undefined): RateLimitDecision => {
    const windowSeconds = w.policy.windowSeconds
    if (count !== undefined && count <= w.limit) {
      return {
        allowed: true,
        limit: w.limit,
        remaining: w.limit - count,
        resetSeconds: w.resetSeconds,
        windowSeconds
      }
    }
    if (count !== undefined) {
      const now = Date.now()
      if (denied.size > 10_000) { for (const [k, end] of denied) if (end <= now) denied.delete(k) }
      denied.set(w.slot, w.windowEnd)
    }
    recordRateLimitDenial(w.policy.id)
    return { allowed: false, limit: w.limit, remaining: 0, resetSeconds: w.resetSeconds, windowSeconds }
  }

  /** Takes `n` ordinals from the shared store, or from the in-process counter when it does not answer. */
  const take = (w: RateLimitWindow, n: number): Effect.Effect<number> =>
    runWithin(
      increment(w.bucket, w.windowStart, n, w.expiresAt),
      STORE_TIMEOUT_MS,
      () => Effect.fail(new StoreTimedOut({ message: `rate limit store gave no answer within ${STORE_TIMEOUT_MS} ms` }))
    ).pipe(
      Effect.catchAll((error) =>
        // The shared store is unreachable: count in this process rather than fail open.
        Effect.suspend(() => {
          const now = Date.now()
          const total = localIncrement(w.slot, n, w.expiresAt.getTime(), now)
          if (now - lastWarning <= 10_000) return Effect.succeed(total)
          lastWarning = now
          return Effect.as(
            Effect.logWarning("rate limit store unavailable; counting in this process").pipe(
              Effect.annotateLogs({ error: String(error) })
            ),
            total
          )
        })
      )
    )
  const leases = makeLeases(take)

  // Hot path: plain callbacks instead of a generator; no I/O while this process's block lasts.
  const consume = (p: RateLimitPolicy, key: string): Effect.Effect<RateLimitDecision> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const w = windowOf(p, key, now)
      if (w.knownDenied) return Effect.succeed(settle(w, undefined))
      return Effect.map(leases.ordinal(w, now), (count) => settle(w, count))
    })

  return {
    consume,
    limitOf,
    leasedUnused: (p, key, now) => leases.unused(windowOf(p, key, now).slot, now),
    countedElsewhere,
    windowOf,
    settle
  }
}

export const RateLimiterLive = Layer.scoped(
  RateLimiter,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const increment: Increment = Option.isSome(config.redisUrl)
      ? yield* redisCounter(Redacted.value(config.redisUrl.value))
      : yield* postgresCounter
    return makeLimiter(increment, config.rateLimits, Option.isNone(config.redisUrl))
  })
)

export const rateLimitHeaders = (d: RateLimitDecision): Record<string, string> => ({
  "ratelimit-limit": String(d.limit),
  "ratelimit-remaining": String(d.remaining),
  "ratelimit-reset": String(d.resetSeconds),
  "ratelimit-policy": `${d.limit};w=${d.windowSeconds}`
})

/**
 * Counts a request of `key` against `policy`: adds the RateLimit headers to whatever response
 * follows, and fails with a 429 `rate_limited` (with `Retry-After`) when over. The request guard
 * calls it for every endpoint's `rateLimited` policy (RateLimitEdge.ts); the signed Partner API
 * and batch for theirs.
 */
export const enforceWith = (
  limiter: RateLimiterShape,
  p: RateLimitPolicy,
  key: string
): Effect.Effect<RateLimitDecision, RateLimitedError> => Effect.flatMap(limiter.consume(p, key), applyDecision)

/** The RateLimit headers on the response to come and, when refused, the 429 `rate_limited`. */
export const applyDecision = (decision: RateLimitDecision): Effect.Effect<RateLimitDecision, RateLimitedError> => {
  if (decision.allowed) return Effect.as(addResponseHeaders(rateLimitHeaders(decision)), decision)
  return Effect.zipRight(
    addResponseHeaders({ ...rateLimitHeaders(decision), "retry-after": String(decision.resetSeconds) }),
    new RateLimitedError({
      code: "rate_limited",
      message:
        `Rate limit of ${decision.limit} requests per ${decision.windowSeconds}s exceeded; retry in ${decision.resetSeconds}s`,
      details: { limit: decision.limit, window_seconds: decision.windowSeconds, retry_after: decision.resetSeconds }
    })
  )
}

/** Deletes expired counter rows; any replica may run it. */
export const RateLimitJanitorLive = janitorOf(
  "rate limit",
  "1 minute",
  SqlClient.SqlClient,
  (sql) => sql`delete from rate_limit_counters where expires_at < now()`
)

/**
 * Where a key stands in a policy's current window, without counting a request: for an answer
 * that spends nothing (a replayed WHOIS lookup) but still shows the RateLimit headers. Reads the
 * PostgreSQL counters (0 when none yet), as the WHOIS replay always has, less the ordinals this
 * process leased and has not used: exact with one replica; with several, other replicas' unused
 * leases (at most a block each) read as spent. Built once per layer.
 */
export const makePeek = Effect.gen(function*() {
  const limiter = yield* RateLimiter
  const sql = yield* SqlClient.SqlClient
  const countOf = SqlSchema.findOne({
    Request: Schema.Struct({ bucket: Schema.String, windowStart: Schema.Number }),
    Result: Count,
    execute: (r) =>
      sql`select count from rate_limit_counters where bucket = ${r.bucket} and window_start = ${r.windowStart}`
  })
  return (p: RateLimitPolicy, key: string): Effect.Effect<RateLimitDecision> =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const windowMs = p.windowSeconds * 1000
      const windowStart = Math.floor(now / windowMs) * windowMs
      const row = yield* countOf({ bucket: `${p.id}|${key}`, windowStart: windowStart / 1000 }).pipe(Effect.orDie)
      const limit = limiter.limitOf(p)
      return {
        allowed: true,
        limit,
        remaining: Math.min(
          limit,
          Math.max(
            0,
            limit - Option.match(row, { onNone: () => 0, onSome: (r) => r.count }) +
              limiter.leasedUnused(p, key, now)
          )
        ),
        resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
        windowSeconds: p.windowSeconds
      }
    })
})
