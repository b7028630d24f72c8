import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fetchReply } from "../support/http.js"
import { startServiceProcess } from "../support/ServiceProcess.js"
import { startSlowProxy } from "../support/SlowProxy.js"
import { sharedDatabaseUrl } from "../support/TestServer.js"

/**
 * The service as a child process whose database traffic passes a slow proxy (to hold a request
 * in flight), without background workers: on the embedded database their polls would queue ahead
 * of the request's statements behind the slow proxy (then a 503 unavailable, rightly, but not
 * what these tests are about). `exited` resolves with the exit code.
 */
const serviceBehindSlowProxy = (settings: { readonly grace: string; readonly drainDelay: string }) =>
  Effect.gen(function*() {
    const databaseUrl = new URL(yield* sharedDatabaseUrl)
    const proxy = yield* startSlowProxy(databaseUrl.hostname, Number(databaseUrl.port || 5432))
    const viaProxy = new URL(databaseUrl.toString())
    viaProxy.hostname = "127.0.0.1"
    viaProxy.port = String(proxy.port)
    const service = yield* startServiceProcess({
      DATABASE_URL: viaProxy.toString(),
      SHUTDOWN_GRACE: settings.grace,
      SHUTDOWN_DRAIN_DELAY: settings.drainDelay,
      WORKERS: "false"
    })
    const exited = new Promise<number | null>((resolve) => service.child.once("exit", (code) => resolve(code)))
    return { proxy, service, exited }
  })

describe("graceful shutdown on SIGTERM", () => {
  it.scopedLive("stops accepting, finishes the request in flight, then exits 0", () =>
    Effect.gen(function*() {
      // Every statement of the in-flight request waits 1.5 s at the proxy: give it a grace well beyond that.
      const { exited, proxy, service } = yield* serviceBehindSlowProxy({ grace: "40 seconds", drainDelay: "0 millis" })

      // Hold the database back so the next request stays in flight.
      proxy.setDelay(1500)
      const inFlight = fetchReply(`${service.baseUrl}/api/pricing/tld?tld=com&op=register`)
      yield* Effect.sleep("300 millis")
      service.child.kill("SIGTERM")
      yield* Effect.sleep("300 millis")

      // New connections are refused while the in-flight request is still being served.
      const late = yield* Effect.promise(() =>
        fetch(`${service.baseUrl}/healthz`).then(() => "accepted", () => "refused")
      )
      expect(late).toBe("refused")

      const reply = yield* Effect.promise(() => inFlight)
      expect(reply.status).toBe(200)
      expect(reply.json).toEqual({ tld: "com", op: "register", priceCents: 1099 })

      const code = yield* Effect.promise(() => exited)
      expect(code).toBe(0)
    }), { timeout: 120_000 })

  it.scopedLive(
    "/readyz turns 503 shutting_down at SIGTERM while /healthz stays 200 and in-flight requests finish",
    () =>
      Effect.gen(function*() {
        // A long drain so the test can look at readiness while the listener still accepts.
        const { exited, proxy, service } = yield* serviceBehindSlowProxy({
          grace: "20 seconds",
          drainDelay: "8 seconds"
        })
        expect((yield* Effect.promise(() => fetchReply(`${service.baseUrl}/readyz`))).status).toBe(200)

        proxy.setDelay(1500)
        const inFlight = fetchReply(`${service.baseUrl}/api/pricing/tld?tld=com&op=register`)
        yield* Effect.sleep("300 millis")
        proxy.setDelay(0)
        const signalled = Date.now()
        service.child.kill("SIGTERM")

        // Not ready from the moment the signal arrives (no database query needed to say so)…
        let ready = yield* Effect.promise(() => fetchReply(`${service.baseUrl}/readyz`))
        for (let i = 0; ready.status === 200 && i < 50; i++) {
          yield* Effect.sleep("20 millis")
          ready = yield* Effect.promise(() => fetchReply(`${service.baseUrl}/readyz`))
        }
        expect(ready.status).toBe(503)
        expect(ready.json.error.code).toBe("shutting_down")
        expect(ready.headers.get("retry-after")).not.toBeNull()
        expect(Date.now() - signalled).toBeLessThan(5_000)
        // …while the process is alive and the request in flight completes.
        expect((yield* Effect.promise(() => fetchReply(`${service.baseUrl}/healthz`))).status).toBe(200)
        const reply = yield* Effect.promise(() => inFlight)
        expect(reply.status).toBe(200)

        expect(yield* Effect.promise(() => exited)).toBe(0)
      }),
    { timeout: 90_000 }
  )
})
