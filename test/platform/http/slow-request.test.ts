/**
 * Slow senders (issue 30 item 4): a request whose headers or declared body never finish arriving
 * is answered 408 `request_timeout` in the typed JSON shape within REQUEST_HEADERS_TIMEOUT /
 * REQUEST_BODY_TIMEOUT and its connection is closed — it is not held for Node's 2 minutes. A body
 * that arrives in pieces within the time is served as usual.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as net from "node:net"
import * as TestServer from "../../support/TestServer.js"

interface Exchange {
  /** Everything the server sent. */
  readonly received: string
  /** Milliseconds from the connection to the server closing it (or to giving up). */
  readonly elapsedMs: number
  /** Whether the server closed the connection (false: still open when we gave up). */
  readonly closedByServer: boolean
}

/**
 * Connects, lets `write` send (possibly incomplete) bytes, and waits for the server to close, at
 * most `ms` — or, with `untilResponse`, until one whole response has arrived.
 */
const exchange = (port: number, write: (socket: net.Socket) => void, ms = 20_000, untilResponse = false) =>
  Effect.promise(() =>
    new Promise<Exchange>((resolve) => {
      const started = Date.now()
      const socket = net.connect(port, "127.0.0.1")
      let received = ""
      let settled = false
      const finish = (closedByServer: boolean) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        socket.destroy()
        resolve({ received, elapsedMs: Date.now() - started, closedByServer })
      }
      const timer = setTimeout(() => finish(false), ms)
      socket.on("data", (d) => {
        received += d.toString("latin1")
        const head = received.indexOf("\r\n\r\n")
        const length = /content-length: (\d+)/i.exec(received)
        if (untilResponse && head !== -1 && length && received.length >= head + 4 + Number(length[1])) finish(false)
      })
      socket.on("end", () => finish(true))
      socket.on("close", () => finish(true))
      socket.on("error", () => finish(true))
      socket.on("connect", () => write(socket))
    })
  )

const parse = (raw: string) => {
  const split = raw.indexOf("\r\n\r\n")
  const head = raw.slice(0, split)
  const headers = Object.fromEntries(
    head.split("\r\n").slice(1).map((
      l
    ) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()])
  )
  const body = raw.slice(split + 4)
  let json: any
  try {
    json = JSON.parse(body)
  } catch {
    json = undefined
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers, body, json }
}

const expect408 = (x: Exchange, withinMs: number) => {
  expect(x.closedByServer, `connection still open after ${x.elapsedMs} ms; received: ${x.received}`).toBe(true)
  expect(x.elapsedMs).toBeLessThan(withinMs)
  const reply = parse(x.received)
  expect(reply.status, x.received).toBe(408)
  expect(reply.headers["content-type"]).toContain("application/json")
  expect(reply.json?.error).toEqual({
    code: "request_timeout",
    message: expect.any(String),
    request_id: reply.headers["x-request-id"]
  })
}

const bodyHead = (path: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

layer(TestServer.layer({ REQUEST_HEADERS_TIMEOUT: "2 seconds", REQUEST_BODY_TIMEOUT: "2 seconds" }))(
  "slow senders",
  (it) => {
    it.effect("a declared body that never arrives: 408 request_timeout within REQUEST_BODY_TIMEOUT, connection closed", () =>
      Effect.gen(function*() {
        const { port } = yield* TestServer.TestServer
        const x = yield* exchange(port, (s) => s.write(bodyHead("/api/tools/idn-convert", 1000) + `{"domain":"`))
        expect(x.elapsedMs).toBeGreaterThanOrEqual(1_500)
        expect408(x, 8_000)
      }))

    it.effect("headers that never finish: 408 request_timeout within REQUEST_HEADERS_TIMEOUT, connection closed", () =>
      Effect.gen(function*() {
        const { port } = yield* TestServer.TestServer
        const x = yield* exchange(port, (s) => s.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a"))
        expect408(x, 8_000)
      }))

    it.effect("a route the request guard does not read (/mcp) is bounded too", () =>
      Effect.gen(function*() {
        const { port } = yield* TestServer.TestServer
        const x = yield* exchange(port, (s) => s.write(bodyHead("/mcp", 1000) + `{"jsonrpc":`))
        expect408(x, 10_000)
      }))

    it.effect("a body sent in pieces within the time is served as usual", () =>
      Effect.gen(function*() {
        const { port } = yield* TestServer.TestServer
        const body = JSON.stringify({ domain: "bücher.example" })
        const x = yield* exchange(
          port,
          (s) => {
            s.write(bodyHead("/api/tools/idn-convert", Buffer.byteLength(body)) + body.slice(0, 5))
            setTimeout(() => s.write(body.slice(5, 12)), 400)
            setTimeout(() => s.write(body.slice(12)), 800)
          },
          10_000,
          true
        )
        const reply = parse(x.received)
        expect(reply.status, x.received).toBe(200)
      }))
  }
)
