/**
 * Ordinal leases: how one process numbers its requests in a rate-limit window without a round
 * trip per request (RateLimit.ts).
 *
 * A window's shared counter (PostgreSQL row or Redis key) hands out ordinals in blocks: one
 * `count = count + n` (or INCRBY n) returns the new total T, and this process owns ordinals
 * T−n+1..T. It gives them to its requests one each, in order, with no I/O; when the block is used
 * up the next request waits for the next lease, and every request that arrives meanwhile waits for
 * that same statement (its `n` is at least their number). Every ordinal is owned by exactly one
 * request in one process, so a request allowed because its ordinal ≤ limit is never one too many,
 * however many replicas share the counter.
 *
 * The contract a reader must keep — the bound on the cost: ordinals leased but not used are lost
 * to the window. The block is 1 for a process's first lease in a window and doubles with each
 * lease, capped at `blockCap(limit)` = max(1, ⌊limit / 10⌋); only the part of a block beyond the
 * requests waiting for it can go unused. A process that refuses a request has used every ordinal ≤
 * limit it held, so when any request is refused at least limit − (replicas − 1) × cap were
 * admitted in that window (one replica: exactly limit). Limits under 20 lease one at a time.
 *
 * What it pays (bench/results/pricing.md, "Rate-limit leases"): one client at a time on
 * GET /api/pricing/tld went from ~1 database transaction per request to ~0.01, and from ~730 to
 * ~250 µs of service CPU per request; under 50 connections, where the group commit already
 * shared statements, ~7–15 % less CPU per request.
 */
import { Deferred, Effect, FiberId } from "effect"

/** The window a request falls in, as the leases need it (RateLimit.ts `RateLimitWindow`). */
export interface LeaseWindow {
  /** Bucket and window start: one counter. */
  readonly slot: string
  readonly limit: number
  /** Unix ms; the slot's lease is forgotten after it. */
  readonly windowEnd: number
}

/** Adds `n` to the window's shared counter and returns the new total (never fails: see RateLimit.ts). */
export type Take<W extends LeaseWindow> = (window: W, n: number) => Effect.Effect<number>

/** The largest block a process leases in a window of `limit`. */
export const blockCap = (limit: number): number => Math.max(1, Math.floor(limit / 10))

/** The block of a process's lease after `leases` earlier ones in the window: 1, 2, 4, … up to the cap. */
export const blockSize = (leases: number, limit: number): number => Math.min(2 ** Math.min(leases, 30), blockCap(limit))

interface Lease {
  /** The next ordinal to hand out; the block is used up when `next > end`. */
  next: number
  end: number
  /** Leases taken in this window. */
  leases: number
  readonly windowEnd: number
  waiters: Array<Deferred.Deferred<number>>
  running: boolean
}

/**
 * One process's leases, per slot: `ordinal(window, now)` is the request's ordinal in its window,
 * immediately when the current block has one left; `unused(slot, now)` is how many ordinals of
 * the window this process holds and has not handed out yet.
 */
export const makeLeases = <W extends LeaseWindow>(take: Take<W>) => {
  const leases = new Map<string, Lease>()
  let pruneAbove = 10_000

  const leaseOf = (w: W, now: number): Lease => {
    let lease = leases.get(w.slot)
    if (lease === undefined) {
      if (leases.size > pruneAbove) {
        for (const [slot, l] of leases) if (l.windowEnd <= now && !l.running) leases.delete(slot)
        // Many live windows (many callers): prune again only once the map has doubled.
        pruneAbove = Math.max(10_000, 2 * leases.size)
      }
      lease = { next: 1, end: 0, leases: 0, windowEnd: w.windowEnd, waiters: [], running: false }
      leases.set(w.slot, lease)
    }
    return lease
  }

  /** Hands out what the block has left, in arrival order; the rest keep waiting. */
  const serve = (lease: Lease) => {
    const waiting = lease.waiters
    lease.waiters = []
    for (const d of waiting) {
      if (lease.next <= lease.end) Deferred.unsafeDone(d, Effect.succeed(lease.next++))
      else lease.waiters.push(d)
    }
  }

  const refill = (w: W, lease: Lease): Effect.Effect<void> =>
    Effect.gen(function*() {
      while (lease.waiters.length > 0) {
        const n = Math.max(lease.waiters.length, blockSize(lease.leases, w.limit))
        const total = yield* take(w, n)
        lease.leases++
        lease.next = total - n + 1
        lease.end = total
        serve(lease)
      }
    }).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          lease.running = false
          // A defect in the store call: the waiters fail with it instead of waiting for ever.
          if (exit._tag === "Failure") {
            for (const d of lease.waiters.splice(0)) Deferred.unsafeDone(d, Effect.failCause(exit.cause))
          }
        })
      )
    )

  // Hot path: a plain callback, no generator; a Deferred only when the block is used up.
  const ordinal = (w: W, now: number): Effect.Effect<number> => {
    const lease = leaseOf(w, now)
    if (lease.next <= lease.end) return Effect.succeed(lease.next++)
    const waiter = Deferred.unsafeMake<number>(FiberId.none)
    lease.waiters.push(waiter)
    if (lease.running) return Deferred.await(waiter)
    lease.running = true
    return Effect.zipRight(Effect.forkDaemon(refill(w, lease)), Deferred.await(waiter))
  }

  const unused = (slot: string, now: number): number => {
    const lease = leases.get(slot)
    return lease === undefined || lease.windowEnd <= now ? 0 : Math.max(0, lease.end - lease.next + 1)
  }

  return { ordinal, unused }
}
