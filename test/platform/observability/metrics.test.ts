/**
 * GET /metrics (Prometheus text format) and the access-log line: request counters and latency
 * histograms by route TEMPLATE (never a raw id), unknown paths as `unmatched`, pool and webhook
 * gauges, the optional METRICS_TOKEN, and client_ip / user_agent / route in the access log.
 */
import { describe, expect, it as vit, layer } from "@effect/vitest"
import { Effect } from "effect"
import { formatAccessLine } from "../../../src/platform/http/AccessLog.js"
import { traceIdOf } from "../../../src/platform/observability/TraceContext.js"
import { get, post } from "../../support/http.js"
import * as TestServer from "../../support/TestServer.js"

const TOKEN = "metrics-token-0123456789abcdef"

interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/** A small parser of the text exposition format: every non-comment line must parse. */
const parse = (text: string): Array<Sample> =>
  text.split("\n").filter((l) => l.length > 0 && !l.startsWith("#")).map((line) => {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) throw new Error(`unparseable metrics line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, k, v] of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v
    return { name: m[1], labels, value: m[3] === "+Inf" ? Infinity : Number(m[3]) }
  })

const find = (samples: Array<Sample>, name: string, labels: Record<string, string>) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

layer(TestServer.layer({ METRICS_TOKEN: TOKEN, LOG_LEVEL: "info", RATE_LIMITS: "{\"pricing_tld\":1}" }), {
  timeout: 120_000
})("metrics", (it) => {
  it.effect("counts requests by route template and status, with histograms and gauges", () =>
    Effect.gen(function*() {
      expect((yield* get("/healthz")).status).toBe(200)
      expect((yield* get("/no/such/path/secret-raw-123")).status).toBe(404)
      const byId = yield* get("/api/partner/v1/orders/ord_RAWID0123456789")
      yield* get("/api/pricing/tld?tld=com")
      expect((yield* get("/api/pricing/tld?tld=com")).status).toBe(429)
      const run = yield* post("/api/admin/settlements/run", undefined, {
        authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}`
      })
      expect(run.status).toBe(200)
      expect(byId.status).toBeGreaterThanOrEqual(400)

      const reply = yield* get("/metrics", { authorization: `Bearer ${TOKEN}` })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-type")).toContain("text/plain; version=0.0.4")
      const samples = parse(reply.text)

      expect(find(samples, "http_requests_total", { method: "GET", route: "/healthz", status: "200" })[0]?.value)
        .toBeGreaterThanOrEqual(1)
      expect(find(samples, "http_requests_total", { route: "unmatched", status: "404" })[0]?.value)
        .toBeGreaterThanOrEqual(1)
      expect(
        find(samples, "http_requests_total", {
          route: "/api/partner/v1/orders/{public_id}",
          status: String(byId.status)
        })[0]?.value
      ).toBeGreaterThanOrEqual(1)

      const buckets = find(samples, "http_request_duration_seconds_bucket", { method: "GET", route: "/healthz" })
      expect(buckets.length).toBeGreaterThan(5)
      const inf = buckets.find((b) => b.labels.le === "+Inf")
      expect(inf?.value).toBeGreaterThanOrEqual(1)
      expect(find(samples, "http_request_duration_seconds_count", { route: "/healthz" })[0]?.value).toBe(inf?.value)

      // Bounded cardinality: no raw path or id ever becomes a label value.
      expect(reply.text).not.toContain("RAWID")
      expect(reply.text).not.toContain("secret-raw")

      expect(find(samples, "db_pool_connections", { state: "total" })[0]?.value).toBeGreaterThanOrEqual(1)
      expect(find(samples, "db_pool_waiting_requests", {})).toHaveLength(1)
      expect(find(samples, "webhook_deliveries_pending", {})[0]?.value).toBe(0)
      expect(find(samples, "webhook_delivery_lag_seconds", {})[0]?.value).toBe(0)
      expect(find(samples, "metrics_scrape_database_ok", {})[0]?.value).toBe(1)
      expect(reply.text).toContain("# TYPE http_request_duration_seconds histogram")
      expect(find(samples, "rate_limit_denials_total", { policy: "pricing_tld" })[0]?.value).toBeGreaterThanOrEqual(1)
      expect(find(samples, "settlement_runs_total", { outcome: run.json.status })[0]?.value).toBeGreaterThanOrEqual(1)
      expect(find(samples, "http_requests_total", { route: "/api/pricing/tld", status: "429" })[0]?.value)
        .toBeGreaterThanOrEqual(1)
    }))

  it.effect("the access log line carries client_ip (TRUST_PROXY off: the socket peer), user_agent and route", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const write = process.stdout.write
      process.stdout.write = ((chunk: any, ...rest: Array<any>) => {
        const text = String(chunk)
        if (text.includes("ord_LOGGED")) lines.push(...text.split("\n").filter((l) => l.includes("ord_LOGGED")))
        return (write as any).call(process.stdout, chunk, ...rest)
      }) as typeof process.stdout.write
      try {
        yield* get("/api/partner/v1/orders/ord_LOGGED", {
          "user-agent": `agent/${"x".repeat(500)}`,
          "x-forwarded-for": "198.51.100.9",
          traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        })
        // Lines are flushed once per event-loop turn.
        for (let i = 0; i < 50 && lines.length === 0; i++) {
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
        }
      } finally {
        process.stdout.write = write
      }
      expect(lines).toHaveLength(1)
      const entry = JSON.parse(lines[0]).annotations
      expect(entry.client_ip).toBe("127.0.0.1")
      expect(entry.route).toBe("/api/partner/v1/orders/{public_id}")
      expect(entry.path).toBe("/api/partner/v1/orders/ord_LOGGED")
      expect(entry.user_agent).toMatch(/^agent\/x+$/)
      expect(entry.user_agent.length).toBe(200)
      expect(entry.trace_id).toBe("4bf92f3577b34da6a3ce929d0e0e4736")
    }))

  it.effect("needs METRICS_TOKEN when it is set, and is not in the public OpenAPI document", () =>
    Effect.gen(function*() {
      const anonymous = yield* get("/metrics")
      expect(anonymous.status).toBe(401)
      // The service's error envelope, request id included.
      expect(anonymous.json.error).toMatchObject({ code: "unauthorized", request_id: expect.stringMatching(/^req_/) })
      expect((yield* get("/metrics", { authorization: "Bearer wrong" })).status).toBe(401)
      const doc = (yield* get("/api/openapi.json")).json
      expect(Object.keys(doc.paths)).not.toContain("/metrics")
    }))
})

describe("access log line", () => {
  vit("takes the trace id of a valid traceparent only", () => {
    expect(traceIdOf("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toBe(
      "4bf92f3577b34da6a3ce929d0e0e4736"
    )
    expect(traceIdOf("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra")).toBe(
      "4bf92f3577b34da6a3ce929d0e0e4736"
    )
    expect(traceIdOf(undefined)).toBeUndefined()
    expect(traceIdOf("00-00000000000000000000000000000000-00f067aa0ba902b7-01")).toBeUndefined()
    expect(traceIdOf("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01")).toBeUndefined()
    expect(traceIdOf("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toBeUndefined()
    expect(traceIdOf("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01")).toBeUndefined()
    expect(traceIdOf("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x")).toBeUndefined()
    expect(traceIdOf("garbage")).toBeUndefined()
  })

  vit("formats client_ip, user_agent and the route template", () => {
    const line = formatAccessLine({
      request_id: "req_1",
      method: "GET",
      path: "/api/partner/v1/orders/ord_1",
      route: "/api/partner/v1/orders/{public_id}",
      status: 200,
      duration_ms: 1.5,
      client_ip: "203.0.113.7",
      user_agent: "curl/8.5.0"
    }, new Date("2026-01-01T00:00:00Z"))
    const parsed = JSON.parse(line)
    expect(parsed.message).toBe("request")
    expect(parsed.annotations).toMatchObject({
      client_ip: "203.0.113.7",
      user_agent: "curl/8.5.0",
      route: "/api/partner/v1/orders/{public_id}"
    })
  })
})
