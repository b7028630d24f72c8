/**
 * METRICS_PORT (issue 36 item 5): `/metrics` on a second listener that serves nothing else, and
 * not on PORT; every scrape carries the process and runtime metrics (CPU, heap, event-loop lag,
 * GC) of prom-client's default collectors, in a text format Prometheus parses.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { get } from "../../support/http.js"
import { freePort } from "../../support/ServiceProcess.js"
import * as TestServer from "../../support/TestServer.js"

let metricsPort = 0

const server = Layer.unwrapEffect(
  Effect.map(freePort(), (port) => {
    metricsPort = port
    return TestServer.layer({ METRICS_PORT: String(port) })
  })
)

const scrape = (path: string) =>
  Effect.promise(() =>
    fetch(`http://127.0.0.1:${metricsPort}${path}`).then(async (r) => ({ status: r.status, text: await r.text() }))
  )

layer(server, { timeout: 120_000 })("METRICS_PORT", (it) => {
  it.effect("serves /metrics on its own port only, with runtime metrics in the text format", () =>
    Effect.gen(function*() {
      expect((yield* get("/healthz")).status).toBe(200)
      expect((yield* get("/metrics")).status).toBe(404)
      const reply = yield* scrape("/metrics")
      expect(reply.status).toBe(200)
      for (
        const name of [
          "process_cpu_user_seconds_total",
          "nodejs_heap_size_used_bytes",
          "nodejs_eventloop_lag_seconds",
          "nodejs_gc_duration_seconds",
          "http_requests_total",
          "db_pool_connections"
        ]
      ) expect(reply.text, name).toMatch(new RegExp(`^# TYPE ${name} `, "m"))
      // Every sample line parses (name, optional labels, value), and no family is declared twice.
      const lines = reply.text.split("\n").filter((l) => l !== "" && !l.startsWith("#"))
      for (const line of lines) expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \S+$/)
      const types = reply.text.split("\n").filter((l) => l.startsWith("# TYPE ")).map((l) => l.split(" ")[2])
      expect(new Set(types).size).toBe(types.length)
      expect((yield* scrape("/healthz")).status).toBe(404)
    }))
})
