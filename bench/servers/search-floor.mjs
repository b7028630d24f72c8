/**
 * The search benchmark's floor: the least a process can do for one search with the same I/O as
 * the service. Plain node:http, no framework, no database, no validation: `POST
 * /api/domain/search` with `{"q":"label.com"}` writes the header line at once, asks the same
 * loopback RDAP server for the name and its 9 alternates over one keep-alive agent, writes the
 * primary's row with `primary_done` as soon as it is known, then every answer that arrived in
 * the same turn of the event loop together, `done` in the last write, as the service's stream
 * does (src/search/Search.ts). Rows have the service's shape and size.
 *
 * Its CPU per search, measured beside the service's in the same run, is what the network and
 * the runtime cost on this machine: the part of the service's figure no change of its code can
 * remove (socket writes and reads, HTTP parsing, timers, garbage of the same answers).
 *
 *   node bench/servers/search-floor.mjs   (env: PORT, RDAP_BASE, TLDS=com,net,…)
 */
import * as Http from "node:http"

const rdapBase = process.env.RDAP_BASE
const tlds = (process.env.TLDS ?? "com").split(",")
const agent = new Http.Agent({ keepAlive: true, maxSockets: 256 })

const row = (domain, started) => ({
  kind: "row",
  domain,
  domain_unicode: domain,
  state: "available",
  state_label: "Available",
  available: true,
  price: 12.99,
  listing: null,
  whois_summary: null,
  cached: false,
  meta: { source: "rdap", checked_at: new Date().toISOString(), latency_ms: Math.round(performance.now() - started) }
})
const line = (event) => JSON.stringify(event) + "\n"

const ask = (domain, tld, done) => {
  const request = Http.request(`${rdapBase}/${tld}/domain/${domain}`, {
    agent,
    headers: { accept: "application/rdap+json, application/json" }
  }, (response) => {
    let body = ""
    response.setEncoding("utf8")
    response.on("data", (chunk) => (body += chunk))
    response.on("end", () => done(response.statusCode, body))
  })
  request.on("error", () => done(0, ""))
  request.end()
}

const search = (q, res) => {
  const started = performance.now()
  const label = q.slice(0, q.indexOf("."))
  const names = tlds.map((tld) => ({ domain: `${label}.${tld}`, tld }))
  res.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store" })
  res.write(
    line({
      kind: "header",
      request_id: "floor",
      primary: names[0].domain,
      domains: names.map((n) => n.domain),
      primary_index: 0
    })
  )
  let primarySent = false
  let sent = 0
  let waiting = []
  let flushScheduled = false
  const flush = () => {
    flushScheduled = false
    if (!primarySent) return
    let out = ""
    for (const r of waiting) out += line(r)
    sent += waiting.length
    waiting = []
    if (sent === names.length) {
      return res.end(
        out + line({ kind: "done", duration_ms: Math.round(performance.now() - started), count: names.length })
      )
    }
    if (out !== "") res.write(out)
  }
  names.forEach((n, i) =>
    ask(n.domain, n.tld, (status, body) => {
      // Read the answer as the service does (a 404 "no such object": unregistered).
      if (status !== 404 && body !== "") JSON.parse(body)
      const r = row(n.domain, started)
      if (i === 0) {
        primarySent = true
        let out = line(r) + line({ kind: "primary_done" })
        for (const w of waiting) out += line(w)
        sent += 1 + waiting.length
        waiting = []
        if (sent === names.length) return res.end(out + line({ kind: "done", duration_ms: 0, count: names.length }))
        return res.write(out)
      }
      waiting.push(r)
      if (primarySent && !flushScheduled) {
        flushScheduled = true
        setImmediate(flush)
      }
    })
  )
}

const server = Http.createServer((req, res) => {
  if (req.method === "GET") return res.end("ok")
  let body = ""
  req.setEncoding("utf8")
  req.on("data", (chunk) => (body += chunk))
  req.on("end", () => search(JSON.parse(body).q, res))
})
server.keepAliveTimeout = 60_000
server.listen(Number(process.env.PORT), process.env.HOST ?? "127.0.0.1")
process.on("SIGTERM", () => server.close(() => process.exit(0)))
