/**
 * Hostile and malformed requests, through HTTP against a real server (issue 10, items 3, 5, 6, 7,
 * 11b and two of 17): each gets a documented 4xx/503 in the documented shape, at once — never a
 * 500, a hang, a bare Node status line, or an error that repeats a large input.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as net from "node:net"
import * as DelayedRdap from "../../support/DelayedRdap.js"
import { fetchReply, realSleep, request, typedError } from "../../support/http.js"
import { createPartner, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

class Rdap extends Context.Tag("test/EdgeRdap")<Rdap, DelayedRdap.DelayedRdapShape>() {}

const MAX_BODY = 64 * 1024

const server = Layer.unwrapScoped(
  Effect.map(DelayedRdap.start({ dev: { delayMs: 30_000 } }), (rdap) =>
    TestServer.layer({
      RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
      RDAP_TIMEOUT: "60 seconds",
      WHOIS_TIMEOUT: "60 seconds",
      MAX_BODY_BYTES: String(MAX_BODY),
      REQUEST_TIMEOUT: "4 seconds",
      // The access log (one line per request, with its status) is what 11b is about.
      LOG_LEVEL: "info"
    }).pipe(Layer.merge(Layer.succeed(Rdap, rdap))))
)

/** Raw bytes to the server; resolves with everything it answered before closing (or `ms`). */
const rawExchange = (port: number, write: (socket: net.Socket) => void, ms = 15_000) =>
  Effect.promise(() =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, "127.0.0.1")
      let received = ""
      const done = () => {
        clearTimeout(timer)
        socket.destroy()
        resolve(received)
      }
      const timer = setTimeout(done, ms)
      socket.on("data", (d) => {
        received += d.toString("latin1")
        // One complete response is enough.
        const head = received.indexOf("\r\n\r\n")
        const length = /content-length: (\d+)/i.exec(received)
        if (head !== -1 && length && received.length >= head + 4 + Number(length[1])) done()
      })
      socket.on("error", done)
      socket.on("close", done)
      socket.on("connect", () => write(socket))
    })
  )

const parseRaw = (raw: string) => {
  const head = raw.slice(0, raw.indexOf("\r\n\r\n"))
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1])
  const headers = Object.fromEntries(
    head.split("\r\n").slice(1).map((
      l
    ) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()])
  )
  const body = raw.slice(raw.indexOf("\r\n\r\n") + 4)
  return { status, headers, body, json: JSON.parse(body) }
}

/** Fails the test instead of hanging when the server never answers. */
const within = (ms: number) => ({ signal: AbortSignal.timeout(ms) })

const expectTyped = (
  reply: { status: number; text: string; headers: Headers; json: any },
  status: number,
  code: string
) => {
  expect(reply.status, reply.text).toBe(status)
  const e = typedError(reply as any)
  expect(e.code).toBe(code)
  return e
}

layer(server, { timeout: 120_000 })("request edge cases", (it) => {
  it.effect("405 with Allow for a known path's unserved method; unknown paths stay 404", () =>
    Effect.gen(function*() {
      const del = yield* request("/api/batch", { method: "DELETE" })
      expectTyped(del, 405, "method_not_allowed")
      expect(del.headers.get("allow")).toBe("GET, POST, HEAD")
      const put = yield* request("/api/market/listings/example.com", { method: "PUT", body: {} })
      expectTyped(put, 405, "method_not_allowed")
      expect(put.headers.get("allow")).toBe("GET, HEAD")
      const tools = yield* request("/api/tools/whois", { method: "GET" })
      expectTyped(tools, 405, "method_not_allowed")
      expect(tools.headers.get("allow")).toBe("POST")
      expectTyped(yield* request("/api/nothing-here", { method: "DELETE" }), 404, "not_found")
      // Legacy paths keep their own shape.
      const legacy = yield* request("/api/pricing/tld?tld=com", { method: "DELETE" })
      expect(legacy.status).toBe(405)
      expect(typeof legacy.json.error).toBe("string")
    }))

  it.effect("413 payload_too_large: on Content-Length, and while streaming a body without one", () =>
    Effect.gen(function*() {
      const { baseUrl, port } = yield* TestServer.TestServer
      const big = JSON.stringify({ domain: "a".repeat(MAX_BODY) })
      const declared = yield* Effect.promise(() =>
        fetchReply(`${baseUrl}/api/tools/idn-convert`, {
          method: "POST",
          body: big,
          headers: { "content-type": "application/json" }
        })
      )
      expectTyped(declared, 413, "payload_too_large")

      // Chunked, no Content-Length: refused once the limit is crossed, the answer still arrives.
      const raw = yield* rawExchange(port, (socket) => {
        socket.write(
          "POST /api/tools/idn-convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        let sent = 0
        const chunk = "a".repeat(16 * 1024)
        const pump = () => {
          while (sent < 3 * MAX_BODY && !socket.destroyed) {
            sent += chunk.length
            if (!socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)) return socket.once("drain", pump)
          }
          if (!socket.destroyed) socket.write("0\r\n\r\n")
        }
        pump()
      })
      const reply = parseRaw(raw)
      expect(reply.status, raw.slice(0, 300)).toBe(413)
      expect(reply.json.error.code).toBe("payload_too_large")
      expect(reply.json.error.request_id).toBe(reply.headers["x-request-id"])

      // Just under the limit is still read and validated.
      const under = JSON.stringify({ domain: "b".repeat(MAX_BODY - 100) })
      expectTyped(
        yield* Effect.promise(() =>
          fetchReply(`${baseUrl}/api/tools/idn-convert`, {
            method: "POST",
            body: under,
            headers: { "content-type": "application/json" }
          })
        ),
        400,
        "validation_error"
      )
    }))

  it.effect("an error quotes at most ~100 characters of the input (schema errors, batch, OAuth)", () =>
    Effect.gen(function*() {
      const long = "x".repeat(50_000)
      const v = yield* request("/api/tools/idn-convert", { method: "POST", body: { domain: long } })
      expectTyped(v, 400, "validation_error")
      expect(v.text.length).toBeLessThan(1_500)

      // A 21-operation batch: the 400 names the limit, it does not repeat the request.
      const ops = Array.from({ length: 21 }, (_, i) => ({ op: "pricing", tld: `t${i}`, padding: "p".repeat(200) }))
      const batch = yield* request("/api/batch", { method: "POST", body: { operations: ops } })
      expectTyped(batch, 400, "validation_error")
      expect(batch.text.length).toBeLessThan(1_500)
      expect(batch.text).not.toContain("t20")

      const oauth = yield* request("/api/oauth/token", {
        method: "POST",
        body: `grant_type=${"g".repeat(5_000)}`,
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      expect(oauth.status).toBe(400)
      expect(oauth.json.error).toBe("unsupported_grant_type")
      expect(oauth.json.error_description.length).toBeLessThan(300)
    }))

  it.effect("415 unsupported_media_type at once for signed Partner writes and public JSON operations", () =>
    Effect.gen(function*() {
      const partner = yield* createPartner({ scopes: ["search", "buy", "webhook"] })
      const writes: Array<[string, string, unknown]> = [
        ["POST", "/api/partner/v1/quotes", { domain: "example.com" }],
        ["POST", "/api/partner/v1/orders", { domain: "example.com" }],
        ["POST", "/api/partner/v1/refunds", { order_id: "ord_x" }],
        ["PUT", "/api/partner/webhooks", { url: "https://example.org/hook" }]
      ]
      const types = [
        "application/xml",
        "multipart/form-data; boundary=x",
        "*/*",
        "application/merge-patch+json",
        "garbage"
      ]
      for (const [method, path, body] of writes) {
        for (const type of types) {
          const started = Date.now()
          const reply = yield* signed(partner, method, path, {
            body,
            headers: { "content-type": type, "idempotency-key": crypto.randomUUID() }
          })
          expect(reply.status, `${method} ${path} ${type}: ${reply.text}`).toBe(415)
          expect(reply.json.error.code).toBe("unsupported_media_type")
          expect(Date.now() - started).toBeLessThan(5_000)
        }
      }
      const { baseUrl } = yield* TestServer.TestServer
      for (const type of types) {
        const reply = yield* Effect.promise(() =>
          fetch(`${baseUrl}/api/tools/idn-convert`, {
            method: "POST",
            body: "not json at all",
            headers: { "content-type": type },
            ...within(10_000)
          })
            .then(async (r) => ({ status: r.status, json: await r.json() }))
        )
        expect(reply.status, type).toBe(415)
        expect(reply.json.error.code).toBe("unsupported_media_type")
      }
      // An empty body says its type too: a multipart form with no parts is refused at once
      // (it used to reach the multipart parser, which waited for parts until the request timed out).
      for (const path of ["/checkout/confirm?pt=x", "/checkout/pay?pt=x", "/api/tools/idn-convert"]) {
        const started = Date.now()
        const reply = yield* Effect.promise(() =>
          fetch(`${baseUrl}${path}`, {
            method: "POST",
            body: "",
            headers: { "content-type": "multipart/form-data; boundary=x" },
            ...within(10_000)
          })
            .then(async (r) => ({ status: r.status, json: await r.json() }))
        )
        expect(reply.status, path).toBe(415)
        expect(reply.json.error.code).toBe("unsupported_media_type")
        expect(Date.now() - started).toBeLessThan(5_000)
      }
      // The OAuth endpoints answer in their own shape.
      const oauth = yield* request("/api/oauth/token", {
        method: "POST",
        body: "<x/>",
        headers: { "content-type": "application/xml" }
      })
      expect(oauth.status).toBe(415)
      expect(oauth.json).toMatchObject({
        error: "invalid_request",
        error_description: expect.stringContaining("x-www-form-urlencoded")
      })
      // The right type still works end to end (signature over the body read once).
      const ok = yield* signed(partner, "POST", "/api/partner/v1/quotes", { body: { domain: "not-listed-here.com" } })
      expect(ok.status, ok.text).toBe(404)
    }))

  it.effect("400, never 500: JSON nested 3,000 deep, and U+0000 in any string", () =>
    Effect.gen(function*() {
      const deep = "[".repeat(3_000) + "]".repeat(3_000)
      expectTyped(
        yield* request("/api/tools/idn-convert", {
          method: "POST",
          body: deep,
          headers: { "content-type": "application/json" }
        }),
        400,
        "invalid_body"
      )
      const deepObject = `{"domain":${"{\"a\":".repeat(40)}1${"}".repeat(40)}}`
      expectTyped(
        yield* request("/api/tools/idn-convert", {
          method: "POST",
          body: deepObject,
          headers: { "content-type": "application/json" }
        }),
        400,
        "invalid_body"
      )

      expectTyped(
        yield* request("/api/auth/login", { method: "POST", body: { email: "a\u0000b@example.com", password: "x" } }),
        400,
        "validation_error"
      )
      const token = yield* request("/api/oauth/token", {
        method: "POST",
        body:
          "grant_type=authorization_code&client_id=a%00b&code=x&redirect_uri=https%3A%2F%2Fa.example&code_verifier=x",
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      expect(token.status, token.text).toBe(400)
      expect(token.json.error).toBe("invalid_request")
      const tokenJson = yield* request("/api/oauth/token", {
        method: "POST",
        body: { grant_type: "refresh_token", client_id: "a\u0000", refresh_token: "x" }
      })
      expect(tokenJson.status, tokenJson.text).toBe(400)
      expect(tokenJson.json.error).toBe("invalid_request")

      const partner = yield* createPartner()
      const order = yield* signed(partner, "POST", "/api/partner/v1/orders", {
        body: {
          domain: "nul.com",
          expected_price: 1,
          currency: "USD",
          external_payment_ref: "p\u0000",
          buyer: { email: "b@example.org" }
        },
        headers: { "idempotency-key": crypto.randomUUID() }
      })
      expect(order.status, order.text).toBe(400)
      expect(order.json.error.code).toBe("validation_error")
      const refund = yield* signed(partner, "POST", "/api/partner/v1/refunds", { body: { order_id: "ord_\u0000" } })
      expect(refund.status, refund.text).toBe(400)
      expect((yield* signed(partner, "GET", "/api/partner/v1/orders/ord%00x")).status).toBe(400)
      expectTyped(
        yield* request("/api/admin/orders/ord%00x", {
          headers: { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
        }),
        400,
        "validation_error"
      )
      // An escaped backslash before "u0000" is not a NUL: the operation answers as usual.
      const notNul = yield* request("/api/tools/idn-convert", {
        method: "POST",
        body: "{\"domain\":\"a\\\\u0000.com\"}",
        headers: { "content-type": "application/json" }
      })
      expect(notNul.status, notNul.text).toBe(200)
    }))

  it.effect("431 for an over-long request line or headers, in the JSON error shape with X-Request-Id", () =>
    Effect.gen(function*() {
      const { port } = yield* TestServer.TestServer
      for (
        const write of [
          (s: net.Socket) => s.write(`GET /healthz?${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
          (s: net.Socket) => s.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`)
        ]
      ) {
        const reply = parseRaw(yield* rawExchange(port, write))
        expect(reply.status).toBe(431)
        expect(reply.headers["content-type"]).toContain("application/json")
        expect(reply.headers["x-request-id"]).toMatch(/^req_/)
        expect(reply.json.error).toEqual({
          code: "headers_too_large",
          message: expect.any(String),
          request_id: reply.headers["x-request-id"]
        })
      }
      const garbage = parseRaw(yield* rawExchange(port, (s) => s.write("NOT HTTP AT ALL\r\n\r\n")))
      expect(garbage.status).toBe(400)
      expect(garbage.json.error.code).toBe("bad_request")
    }))

  it.effect("a handler past REQUEST_TIMEOUT answers 503 request_timeout with Retry-After", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const reply = yield* request("/api/tools/whois", { method: "POST", body: { domain: "slow-upstream.dev" } })
      expectTyped(reply, 503, "request_timeout")
      expect(reply.headers.get("retry-after")).toBe("1")
      expect(Date.now() - started).toBeLessThan(20_000)
    }))

  it.effect("a client that hangs up mid-request is logged 499, with no error logged", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestServer.TestServer
      const rdap = yield* Rdap
      const lines: Array<string> = []
      const write = process.stdout.write.bind(process.stdout)
      process.stdout.write = ((chunk: any, ...rest: Array<any>) => {
        lines.push(String(chunk))
        return write(chunk, ...rest)
      }) as typeof process.stdout.write
      try {
        const controller = new AbortController()
        const before = rdap.lookups().length
        const pending = fetch(`${baseUrl}/api/tools/whois`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-request-id": "edge-hangup-1" },
          body: JSON.stringify({ domain: "hangs-up.dev" }),
          signal: controller.signal
        }).catch(() => "aborted")
        for (let i = 0; i < 100 && rdap.lookups().length === before; i++) yield* realSleep(50)
        controller.abort()
        expect(yield* Effect.promise(() => pending)).toBe("aborted")
        let line: string | undefined
        for (let i = 0; i < 100 && line === undefined; i++) {
          yield* realSleep(50)
          line = lines.join("").split("\n").find((l) => l.includes("edge-hangup-1") && l.includes("\"status\""))
        }
        expect(line, lines.join("").slice(-2_000)).toBeDefined()
        expect(JSON.parse(line!).annotations.status).toBe(499)
        expect(lines.join("")).not.toContain("unhandled defect")
      } finally {
        process.stdout.write = write
      }
    }))
})
