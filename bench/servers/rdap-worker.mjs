/**
 * The search benchmark's RDAP stand-in, run in a worker thread so its timers and writes never
 * share an event loop with the benchmark's client: a bootstrap file, then 404 (unregistered)
 * for every domain after `delayMs`. Records when each `.com` (queried) name's request arrived, in
 * absolute milliseconds (`performance.timeOrigin + performance.now()`), for the client to read at
 * the end.
 */
import * as Http from "node:http"
import { parentPort, workerData } from "node:worker_threads"

const { delayMs, tlds } = workerData
let base = ""
let requests = 0
const asked = new Map()

const server = Http.createServer((req, res) => {
  if (req.url === "/dns.json") {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({
      version: "1.0",
      publication: "2026-01-01T00:00:00Z",
      services: tlds.map((t) => [[t], [`${base}/${t}/`]])
    }))
    return
  }
  requests++
  const m = /\/domain\/([^/?]+\.com)$/.exec(req.url ?? "")
  if (m !== null && !asked.has(m[1])) asked.set(m[1], performance.timeOrigin + performance.now())
  setTimeout(() => {
    res.writeHead(404, { "content-type": "application/rdap+json" })
    res.end("{\"errorCode\":404,\"title\":\"Not Found\"}")
  }, delayMs)
})
server.keepAliveTimeout = 60_000
server.listen(0, "127.0.0.1", () => {
  base = `http://127.0.0.1:${server.address().port}`
  parentPort.postMessage({ base })
})

parentPort.on("message", (message) => {
  if (message === "report") parentPort.postMessage({ requests, asked: Object.fromEntries(asked) })
  if (message === "close") {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  }
})
