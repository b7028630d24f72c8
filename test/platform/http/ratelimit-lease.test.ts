/**
 * Ordinal leases (src/platform/http/RateLimitLease.ts) over a stand-in shared counter that counts
 * its increments: few increments for many requests, one increment for a burst, and — over random
 * interleavings of two "replicas" — never more than the limit admitted, never less than the
 * documented bound once anyone is refused.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import fc from "fast-check"
import { blockCap, blockSize, type LeaseWindow, makeLeases } from "../../../src/platform/http/RateLimitLease.js"

/** A shared counter (the `rate_limit_counters` row of one window) that counts its increments. */
const sharedCounter = (options: { readonly yieldFirst?: boolean } = {}) => {
  const counter = { total: 0, increments: 0 }
  const take = (_w: LeaseWindow, n: number) =>
    Effect.zipRight(
      options.yieldFirst ? Effect.yieldNow() : Effect.void,
      Effect.sync(() => {
        counter.increments++
        counter.total += n
        return counter.total
      })
    )
  return { counter, take }
}

const windowOf = (limit: number): LeaseWindow => ({ slot: "pricing_tld|198.51.100.7|0", limit, windowEnd: 60_000 })

describe("rate-limit ordinal leases", () => {
  it("block sizes: 1, then doubling, capped at max(1, floor(limit / 10))", () => {
    expect([0, 1, 2, 3, 4, 5].map((k) => blockSize(k, 120))).toEqual([1, 2, 4, 8, 12, 12])
    expect([0, 1, 2].map((k) => blockSize(k, 19))).toEqual([1, 1, 1])
    expect(blockCap(1)).toBe(1)
    expect(blockSize(200, 1_000_000_000)).toBe(100_000_000)
  })

  it.effect("N sequential requests cost about log2(N) increments, each request its own next ordinal", () =>
    Effect.gen(function*() {
      const { counter, take } = sharedCounter()
      const { ordinal } = makeLeases(take)
      const w = windowOf(1_000_000)
      const ordinals: Array<number> = []
      for (let i = 0; i < 1000; i++) ordinals.push(yield* ordinal(w, 0))
      expect(ordinals).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
      expect(counter.increments).toBe(10) // blocks 1 + 2 + … + 512 = 1023
      expect(counter.total).toBe(1023)

      // A limit of 120 (cap 12): 120 requests in 13 increments instead of 120.
      const small = sharedCounter()
      const { ordinal: ordinalSmall } = makeLeases(small.take)
      for (let i = 0; i < 120; i++) yield* ordinalSmall(windowOf(120), 0)
      expect(small.counter.increments).toBe(13)
    }))

  it.effect("requests that arrive while a lease is on its way share that one increment", () =>
    Effect.gen(function*() {
      const { counter, take } = sharedCounter({ yieldFirst: true })
      const { ordinal } = makeLeases(take)
      const w = windowOf(1000)
      const ordinals = yield* Effect.all(Array.from({ length: 50 }, () => ordinal(w, 0)), { concurrency: "unbounded" })
      expect([...ordinals].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
      expect(counter.increments).toBe(1)
    }))

  it.effect("a new window starts again at a block of 1", () =>
    Effect.gen(function*() {
      const { counter, take } = sharedCounter()
      const { ordinal } = makeLeases(take)
      for (let i = 0; i < 7; i++) yield* ordinal(windowOf(1000), 0) // blocks 1, 2, 4
      const before = counter.total
      yield* ordinal({ slot: "pricing_tld|198.51.100.7|60", limit: 1000, windowEnd: 120_000 }, 60_000)
      expect(counter.total - before).toBe(1)
    }))

  it.effect("a store call that dies fails its waiters instead of leaving them waiting; the next request leases again", () =>
    Effect.gen(function*() {
      let calls = 0
      const { ordinal } = makeLeases((_w, n) => (++calls === 1 ? Effect.die("store exploded") : Effect.succeed(n)))
      const exit = yield* Effect.exit(ordinal(windowOf(100), 0))
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
      expect(yield* ordinal(windowOf(100), 0)).toBe(1)
    }))

  it.effect("two replicas, random interleavings: admitted within [limit - cap, limit], each ordinal once", () =>
    Effect.sync(() =>
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 300 }),
          // Runs of requests to one replica, then the other: a replica may lease a big block and
          // fall idle while the other runs out.
          fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 60 })), { minLength: 1, maxLength: 40 }),
          (limit, runs) => {
            const picks = runs.flatMap(([pick, length]) => Array.from({ length }, () => pick))
            const { take } = sharedCounter()
            const replicas = [makeLeases(take).ordinal, makeLeases(take).ordinal]
            const w = windowOf(limit)
            const admitted = new Set<number>()
            let refused = 0
            for (const pick of picks) {
              const ordinal = Effect.runSync(replicas[pick ? 1 : 0]!(w, 0))
              if (ordinal > limit) refused++
              else {
                expect(admitted.has(ordinal)).toBe(false)
                admitted.add(ordinal)
              }
            }
            expect(admitted.size).toBeLessThanOrEqual(limit)
            // Nobody refused: everyone was admitted; someone refused: at most (2 - 1) × cap unused.
            if (refused === 0) expect(admitted.size).toBe(picks.length)
            else expect(admitted.size).toBeGreaterThanOrEqual(limit - blockCap(limit))
          }
        ),
        { numRuns: 300 }
      )
    ))

  it.effect("two replicas, concurrent bursts while leases are on their way: the same bound", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 200 }),
          fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 30 })), { minLength: 1, maxLength: 40 }),
          async (limit, bursts) => {
            const { take } = sharedCounter({ yieldFirst: true })
            const replicas = [makeLeases(take).ordinal, makeLeases(take).ordinal]
            const w = windowOf(limit)
            // Each burst's requests run together, and the bursts of the two replicas overlap.
            const ordinals = await Effect.runPromise(Effect.all(
              bursts.map(([pick, size]) =>
                Effect.all(Array.from({ length: size }, () => replicas[pick ? 1 : 0]!(w, 0)), {
                  concurrency: "unbounded"
                })
              ),
              { concurrency: 2 }
            ))
            const all = ordinals.flat()
            const admitted = all.filter((o) => o <= limit)
            expect(new Set(admitted).size).toBe(admitted.length)
            expect(admitted.length).toBeLessThanOrEqual(limit)
            if (admitted.length < all.length) expect(admitted.length).toBeGreaterThanOrEqual(limit - blockCap(limit))
          }
        ),
        { numRuns: 200 }
      )
    ))
})
