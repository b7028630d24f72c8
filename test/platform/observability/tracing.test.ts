/**
 * OpenTelemetry traces from the real service (a separate process, as deployed): with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a loopback OTLP/HTTP receiver written here, a request
 * carrying a W3C `traceparent` is exported as a server span in the caller's trace, with its SQL
 * statements as child spans; the access log's `trace_id` is the exported trace id (also for a
 * request without `traceparent`); an upstream call (RDAP) is a client span of its request's trace
 * and carries no trace context to the upstream; no secret the caller sent (Authorization,
 * cookies, partner signature headers, query tokens) appears anywhere in the exported data.
 * Both databases.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { signRequest } from "../../../src/partner-client/index.js"
import { pgLayer } from "../../../src/platform/db/Database.js"
import { createPartner } from "../../support/PartnerKit.js"
import { startServiceProcess } from "../../support/ServiceProcess.js"
import { sharedDatabaseUrl } from "../../support/TestServer.js"

interface ExportedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: Record<string, unknown>
}

const SPAN_KIND_SERVER = 2
const SPAN_KIND_CLIENT = 3

interface Receiver {
  readonly url: string
  /** OTLP export bodies. */
  readonly bodies: Array<string>
  readonly contentTypes: Array<string>
  /** Every other request (the service's RDAP calls: an upstream, i.e. a third party). */
  readonly upstream: Array<{ readonly path: string; readonly headers: Http.IncomingHttpHeaders }>
}

/**
 * A minimal OTLP/HTTP receiver (JSON encoding) that keeps every export it is sent; it also plays
 * an RDAP server (bootstrap file, "not found" for every domain) to watch an upstream call.
 */
const startReceiver = Effect.acquireRelease(
  Effect.async<Receiver & { server: Http.Server }>((resume) => {
    const bodies: Array<string> = []
    const contentTypes: Array<string> = []
    const upstream: Receiver["upstream"] = []
    let base = ""
    const server = Http.createServer((req, res) => {
      let body = ""
      req.setEncoding("utf8")
      req.on("data", (d) => (body += d))
      req.on("end", () => {
        if (req.method === "POST" && req.url === "/v1/traces") {
          bodies.push(body)
          contentTypes.push(String(req.headers["content-type"]))
          return res.writeHead(200, { "content-type": "application/json" }).end("{}")
        }
        upstream.push({ path: req.url ?? "/", headers: req.headers })
        if (req.url === "/dns.json") {
          const bootstrap = {
            version: "1.0",
            publication: "2026-01-01T00:00:00Z",
            services: [[["com"], [`${base}/rdap/`]]]
          }
          return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(bootstrap))
        }
        res.writeHead(404, { "content-type": "application/rdap+json" }).end(
          JSON.stringify({ errorCode: 404, title: "Not Found" })
        )
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      base = `http://127.0.0.1:${port}`
      resume(Effect.succeed({ url: base, bodies, contentTypes, upstream, server }))
    })
  }),
  (r) => Effect.promise(() => new Promise<void>((done) => r.server.close(() => done())))
)

const valueOf = (v: any): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? v

const spansOf = (bodies: ReadonlyArray<string>): Array<ExportedSpan> =>
  bodies.flatMap((b) =>
    (JSON.parse(b).resourceSpans ?? []).flatMap((rs: any) =>
      (rs.scopeSpans ?? []).flatMap((ss: any) =>
        (ss.spans ?? []).map((s: any) => ({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId || undefined,
          name: s.name,
          kind: s.kind,
          attributes: Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, valueOf(a.value)]))
        }))
      )
    )
  )

const accessLines = (output: string) =>
  output.split("\n").flatMap((line) => {
    try {
      const entry = JSON.parse(line)
      return entry.message === "request" ? [entry.annotations] : []
    } catch {
      return []
    }
  })

const waitFor = <A>(probe: () => A | undefined, what: string, timeoutMs = 30_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = probe()
      if (found !== undefined) return found
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("100 millis")
    }
  })

describe("tracing", () => {
  it.scopedLive(
    "request spans in the caller's trace, SQL child spans, the access log's trace_id, no secrets",
    () =>
      Effect.gen(function*() {
        const receiver = yield* startReceiver
        const databaseUrl = yield* sharedDatabaseUrl
        const service = yield* startServiceProcess({
          DATABASE_URL: databaseUrl,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_SERVICE_NAME: "marketplace-under-test",
          OTEL_BSP_SCHEDULE_DELAY: "200",
          RDAP_BOOTSTRAP_URL: `${receiver.url}/dns.json`
        })

        const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
        const callerSpanId = "00f067aa0ba902b7"
        const secrets = ["SECRET-AUTHZ-9f8e7d", "SECRET-COOKIE-1a2b3c", "SECRET-PT-5d6e7f", "SECRET-T-0a1b2c"]

        // 1. A signed partner request (signature headers) carrying the caller's traceparent.
        const partner = yield* createPartner().pipe(Effect.provide(pgLayer({ url: Redacted.make(databaseUrl) }, 2)))
        const signedHeaders = signRequest({ keyId: partner.key_id, secret: partner.secret }, {
          method: "GET",
          url: "/api/partner/v1/orders"
        })
        const orders = yield* Effect.promise(() =>
          fetch(`${service.baseUrl}/api/partner/v1/orders`, {
            headers: {
              ...signedHeaders,
              traceparent: `00-${traceId}-${callerSpanId}-01`,
              cookie: `session=${secrets[1]}`
            }
          })
        )
        expect(orders.status).toBe(200)

        // 2. A public request without traceparent, with secrets in headers and the query string.
        const pricing = yield* Effect.promise(() =>
          fetch(`${service.baseUrl}/api/pricing/tld?tld=com&pt=${secrets[2]}&t=${secrets[3]}`, {
            headers: { authorization: `Bearer ${secrets[0]}`, cookie: `session=${secrets[1]}` }
          })
        )
        expect(pricing.status).toBe(200)

        // The request span: the caller's trace, the caller's span as parent, named after the route.
        const server = yield* waitFor(
          () => spansOf(receiver.bodies).find((s) => s.traceId === traceId && s.kind === SPAN_KIND_SERVER),
          "the request span"
        )
        expect(receiver.contentTypes[0]).toContain("application/json")
        expect(server).toMatchObject({ name: "GET /api/partner/v1/orders", parentSpanId: callerSpanId })
        expect(server.attributes).toMatchObject({
          "http.request.method": "GET",
          "http.route": "/api/partner/v1/orders",
          "url.path": "/api/partner/v1/orders",
          "http.response.status_code": 200
        })

        // A SQL statement of that request (credential lookup, nonce), a descendant of the request span.
        const sqlSpan = yield* waitFor(
          () => spansOf(receiver.bodies).find((s) => s.traceId === traceId && s.name === "sql.execute"),
          "a SQL span of the request"
        )
        const all = () => spansOf(receiver.bodies)
        const ancestors = (span: ExportedSpan): Array<string> => {
          const parent = all().find((s) => s.spanId === span.parentSpanId)
          return parent === undefined ? [] : [parent.spanId, ...ancestors(parent)]
        }
        expect(ancestors(sqlSpan)).toContain(server.spanId)
        expect(sqlSpan.kind).toBe(SPAN_KIND_CLIENT)
        expect(sqlSpan.attributes["db.system.name"]).toBe("postgresql")
        expect(String(sqlSpan.attributes["db.query.text"])).toMatch(/select|insert/i)

        // The public request: a trace of its own, named after its route, no query string.
        const pricingSpan = yield* waitFor(
          () => all().find((s) => s.kind === SPAN_KIND_SERVER && s.name === "GET /api/pricing/tld"),
          "the pricing request span"
        )
        expect(pricingSpan.traceId).not.toBe(traceId)
        expect(pricingSpan.parentSpanId).toBeUndefined()
        expect(pricingSpan.attributes["url.path"]).toBe("/api/pricing/tld")

        // The access log names the exported trace ids.
        const lines = yield* waitFor(() => {
          const found = accessLines(service.output()).filter((l) =>
            l.path === "/api/pricing/tld" || l.path === "/api/partner/v1/orders"
          )
          return found.length >= 2 ? found : undefined
        }, "the access-log lines")
        expect(lines.find((l) => l.path === "/api/partner/v1/orders")!.trace_id).toBe(traceId)
        expect(lines.find((l) => l.path === "/api/pricing/tld")!.trace_id).toBe(pricingSpan.traceId)
        // …and the partner and credential of the signed request (none for the public one).
        expect(lines.find((l) => l.path === "/api/partner/v1/orders")).toMatchObject({
          partner_id: partner.partner_id,
          key_id: partner.key_id
        })
        expect(lines.find((l) => l.path === "/api/pricing/tld")!.partner_id).toBeUndefined()

        // 3. A WHOIS lookup asks RDAP (an upstream, here answering "not found"): the upstream call is
        // a span of the request's trace; the upstream receives no trace context.
        const whois = yield* Effect.promise(() =>
          fetch(`${service.baseUrl}/api/tools/whois`, {
            method: "POST",
            headers: { "content-type": "application/json", traceparent: `00-${traceId}-${callerSpanId}-01` },
            body: JSON.stringify({ domain: "trace-example.com" })
          })
        )
        expect(whois.status).toBeLessThan(500)
        const rdapSpan = yield* waitFor(
          () =>
            all().find((s) =>
              s.kind === SPAN_KIND_CLIENT && s.name.startsWith("http.client") &&
              String(s.attributes["url.path"]).includes("trace-example.com")
            ),
          "the RDAP call's span"
        )
        const chain = ancestors(rdapSpan).map((id) => all().find((s) => s.spanId === id)?.name)
        expect(chain, chain.join(" < ")).toContain("POST /api/tools/whois")
        expect(rdapSpan.traceId).toBe(traceId)
        const upstreamCalls = receiver.upstream.filter((r) => r.path.includes("trace-example.com"))
        expect(upstreamCalls.length).toBeGreaterThan(0)
        for (const call of [...receiver.upstream]) {
          expect(call.headers.traceparent, call.path).toBeUndefined()
          expect(call.headers.b3, call.path).toBeUndefined()
        }

        // The resource names the service; nothing secret went out.
        const exported = receiver.bodies.join("\n")
        expect(exported).toContain("marketplace-under-test")
        for (
          const secret of [
            ...secrets,
            partner.secret,
            ...Object.values(signedHeaders).filter((v) => v.length >= 16)
          ]
        ) {
          expect(exported).not.toContain(secret)
        }
        expect(exported).not.toContain("pt=")
        expect(exported).not.toContain(databaseUrl)
        // Health probes (startServiceProcess polled /readyz) are not traced.
        expect(all().some((s) => s.attributes["url.path"] === "/readyz")).toBe(false)
      }),
    { timeout: 180_000 }
  )
})
