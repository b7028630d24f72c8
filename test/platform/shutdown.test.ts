import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fetchReply } from "../support/http.js"
import { startServiceProcess } from "../support/ServiceProcess.js"
import { startSlowProxy } from "../support/SlowProxy.js"
import { sharedDatabaseUrl } from "../support/TestServer.js"

describe("graceful shutdown on SIGTERM", () => {
  it.scopedLive("stops accepting, finishes the request in flight, then exits 0", () =>
    Effect.gen(function*() {
      const databaseUrl = new URL(yield* sharedDatabaseUrl)
      const proxy = yield* startSlowProxy(databaseUrl.hostname, Number(databaseUrl.port || 5432))
      const viaProxy = new URL(databaseUrl.toString())
      viaProxy.hostname = "127.0.0.1"
      viaProxy.port = String(proxy.port)
      const service = yield* startServiceProcess({ DATABASE_URL: viaProxy.toString(), SHUTDOWN_GRACE: "10 seconds" })

      // Hold the database back so the next request stays in flight.
      proxy.setDelay(1500)
      const inFlight = fetchReply(`${service.baseUrl}/api/pricing/tld?tld=com&op=register`)
      yield* Effect.sleep("300 millis")
      const exited = new Promise<number | null>((resolve) => service.child.once("exit", (code) => resolve(code)))
      service.child.kill("SIGTERM")
      yield* Effect.sleep("300 millis")

      // New connections are refused while the in-flight request is still being served.
      const late = yield* Effect.promise(() => fetch(`${service.baseUrl}/healthz`).then(() => "accepted", () => "refused"))
      expect(late).toBe("refused")

      const reply = yield* Effect.promise(() => inFlight)
      expect(reply.status).toBe(200)
      expect(reply.json).toEqual({ tld: "com", op: "register", priceCents: 1099 })

      const code = yield* Effect.promise(() => exited)
      expect(code).toBe(0)
    }), { timeout: 60_000 })
})
