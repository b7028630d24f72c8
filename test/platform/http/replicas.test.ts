import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fetchReply } from "../../support/http.js"
import { startServiceProcess } from "../../support/ServiceProcess.js"
import { sharedDatabaseUrl } from "../../support/TestServer.js"

describe("two service processes on one database", () => {
  it.scopedLive(
    "share the per-IP limit: of 140 pricing requests in a minute spread over both, at most 120 pass",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* sharedDatabaseUrl
        const [a, b] = yield* Effect.all([
          startServiceProcess({ DATABASE_URL: databaseUrl }),
          startServiceProcess({ DATABASE_URL: databaseUrl })
        ], { concurrency: 2 })

        // Start at the beginning of a window so all 121 requests fall into the same minute.
        const first = yield* Effect.promise(() => fetchReply(`${a.baseUrl}/api/pricing/tld?tld=com`))
        const reset = Number(first.headers.get("ratelimit-reset"))
        if (reset < 20) {
          yield* Effect.sleep(`${reset + 1} seconds`)
        }
        // 140 requests, alternating between the processes, all in one window: on a loaded machine
        // they may take long enough to cross into the next one, and then they are sent again (the
        // new window has just begun).
        const run = (sent: number) =>
          Effect.gen(function*() {
            const statuses: Array<number> = sent === 1 ? [first.status] : []
            const remaining: Array<number> = sent === 1 ? [Number(first.headers.get("ratelimit-remaining"))] : []
            let lastReset = sent === 1 ? reset : Infinity
            for (let i = sent; i < 140; i++) {
              const target = i % 2 === 0 ? a : b
              const reply = yield* Effect.promise(() =>
                fetchReply(`${target.baseUrl}/api/pricing/tld?tld=com&op=register`)
              )
              const replyReset = Number(reply.headers.get("ratelimit-reset"))
              if (replyReset > lastReset) return undefined // the window rolled over
              lastReset = replyReset
              statuses.push(reply.status)
              remaining.push(Number(reply.headers.get("ratelimit-remaining")))
            }
            return { statuses, remaining }
          })
        // (If we slept, the first request counted in an earlier window: send all 140 again.)
        const once = yield* run(reset < 20 ? 0 : 1)
        const { remaining, statuses } = once ?? (yield* run(0))!
        // On failure, say which statuses came back and what the processes logged.
        const problems = () =>
          [a, b].flatMap((p) => p.output().split("\n").filter((l) => /ERROR|WARN|FATAL|"status":[45]\d\d/.test(l)))
            .slice(-10).join("\n")
        // Each process leases ordinals in blocks (src/platform/http/RateLimitLease.ts): never more
        // than the limit pass, each with its own Remaining, and at most (2 - 1) × 12 (the block cap
        // for a limit of 120) go unused, leased by one process while the other ran out.
        const passed = statuses.flatMap((s, i) => (s === 200 ? [remaining[i]] : []))
        expect(statuses.filter((s) => s !== 200 && s !== 429), `statuses: ${statuses.join(",")}\n${problems()}`)
          .toEqual([])
        expect(passed.length, `statuses: ${statuses.join(",")}`).toBeLessThanOrEqual(120)
        expect(passed.length, `statuses: ${statuses.join(",")}`).toBeGreaterThanOrEqual(120 - 12)
        expect(new Set(passed).size).toBe(passed.length)
        expect(statuses.slice(-2)).toEqual([429, 429])
      }),
    { timeout: 120_000 }
  )
})
