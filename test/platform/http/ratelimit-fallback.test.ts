/**
 * Rate limits hold while the shared counter store is unreachable: with REDIS_URL pointing at a
 * port nobody listens on, the service counts in process instead of letting every request through.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Net from "node:net"
import { get } from "../../support/http.js"
import * as TestServer from "../../support/TestServer.js"

const closedPort = await new Promise<number>((resolve) => {
  const srv = Net.createServer()
  srv.listen(0, "127.0.0.1", () => {
    const { port } = srv.address() as Net.AddressInfo
    srv.close(() => resolve(port))
  })
})

describe("rate limits while the shared store is down", () => {
  layer(
    TestServer.layer({
      REDIS_URL: `redis://127.0.0.1:${closedPort}/0`,
      RATE_LIMITS: JSON.stringify({ pricing_tld: 3 })
    })
  )("unreachable Redis", (it) => {
    it.effect(
      "the limit still holds (in-process fallback), with the usual headers and 429",
      () =>
        Effect.gen(function*() {
          const path = "/api/pricing/tld?tld=com&op=register"
          let first = yield* get(path)
          // Close to a window boundary the four requests could straddle two windows: start afresh.
          if (Number(first.headers.get("ratelimit-reset")) < 10) {
            yield* Effect.sleep(`${Number(first.headers.get("ratelimit-reset")) + 1} seconds`)
            first = yield* get(path)
          }
          expect(first.status).toBe(200)
          expect(first.headers.get("ratelimit-remaining")).toBe("2")
          expect((yield* get(path)).status).toBe(200)
          expect((yield* get(path)).status).toBe(200)
          const refused = yield* get(path)
          expect(refused.status).toBe(429)
          expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
        }),
      { timeout: 90_000 }
    )
  })
})
