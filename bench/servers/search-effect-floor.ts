/**
 * The search benchmark's framework floor: the smallest Effect HttpApi server that answers a
 * search with the service's design (src/search/Search.ts) and nothing else: one endpoint, no
 * middleware, no database, no guards. The body is an Effect Stream: the header at once, one
 * forked fiber per name asking the loopback RDAP server in one `Effect.async` (node:http,
 * keep-alive, as src/lookup/RdapTransport.ts does), answers through a Queue, the primary's row
 * with `primary_done` first, then each turn of the event loop's answers in one write.
 *
 * Beside bench/servers/search-floor.mjs (the same I/O in plain node:http), it tells what the
 * runtime and the framework cost before any rule of ours runs.
 *
 *   env: PORT, RDAP_BASE, TLDS=com,net,…
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Chunk, Effect, Layer, Option, Queue, Schema, Stream } from "effect"
import * as Http from "node:http"

const rdapBase = process.env.RDAP_BASE
const tlds = (process.env.TLDS ?? "com").split(",")
const agent = new Http.Agent({ keepAlive: true, maxSockets: 256 })
const encoder = new TextEncoder()
const line = (event: unknown) => encoder.encode(JSON.stringify(event) + "\n")

class Api extends HttpApi.make("bench").add(
  HttpApiGroup.make("search").add(
    HttpApiEndpoint.post("search", "/api/domain/search").setPayload(Schema.Struct({ q: Schema.String }))
  ).add(HttpApiEndpoint.get("ready", "/ready").addSuccess(Schema.String))
) {}

const ask = (domain: string, tld: string) =>
  Effect.async<number>((resume) => {
    const request = Http.request(`${rdapBase}/${tld}/domain/${domain}`, {
      agent,
      headers: { accept: "application/rdap+json, application/json" }
    }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (body += chunk))
      response.on("end", () => {
        if (response.statusCode !== 404 && body !== "") JSON.parse(body)
        resume(Effect.succeed(response.statusCode ?? 0))
      })
    })
    request.on("error", () => resume(Effect.succeed(0)))
    request.end()
    return Effect.sync(() => request.destroy())
  })

const endOfPollPhase = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

const row = (domain: string, started: number) => ({
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
  meta: { source: "rdap", checked_at: new Date().toISOString(), latency_ms: Math.round(Date.now() - started) }
})

const search = (q: string) => {
  const started = Date.now()
  const label = q.slice(0, q.indexOf("."))
  const names = tlds.map((tld) => ({ domain: `${label}.${tld}`, tld }))
  const rows = Stream.unwrapScoped(Effect.gen(function*() {
    const queue = yield* Queue.unbounded<readonly [number, string]>()
    yield* Effect.forEach(
      names,
      (n, i) =>
        Effect.forkScoped(Effect.flatMap(ask(n.domain, n.tld), () => Queue.offer(queue, [i, n.domain] as const))),
      {
        discard: true
      }
    )
    let sent = 0
    let primarySent = false
    const waiting: Array<readonly [number, string]> = []
    const batch = (ready: ReadonlyArray<readonly [number, string]>) => {
      const out: Array<unknown> = []
      if (!primarySent) {
        primarySent = true
        out.push(row(names[0].domain, started), { kind: "primary_done" })
        for (const [i, d] of ready) if (i !== 0) out.push(row(d, started))
      } else {
        for (const [, d] of ready) out.push(row(d, started))
      }
      sent += ready.length
      if (sent === names.length) out.push({ kind: "done", duration_ms: Date.now() - started, count: names.length })
      return Chunk.unsafeFromArray(out)
    }
    const pull: Effect.Effect<Chunk.Chunk<unknown>, Option.Option<never>> = Effect.suspend(() => {
      if (sent === names.length) return Effect.fail(Option.none())
      if (!primarySent) {
        return Effect.flatMap(Queue.take(queue), (item) => {
          waiting.push(item)
          return item[0] !== 0 ? pull : Effect.succeed(batch(waiting.splice(0, waiting.length)))
        })
      }
      return Effect.flatMap(
        Queue.take(queue),
        (first) => Effect.map(Effect.zipRight(endOfPollPhase, Queue.takeAll(queue)), (more) => batch([first, ...more]))
      )
    })
    return Stream.repeatEffectChunkOption(pull)
  }))
  const header = { kind: "header", request_id: "floor", primary: names[0].domain, domains: names.map((n) => n.domain) }
  return Stream.make(header).pipe(Stream.concat(rows), Stream.map(line))
}

const SearchLive = HttpApiBuilder.group(Api, "search", (h) =>
  h.handle("search", ({ payload }) =>
    Effect.succeed(
      HttpServerResponse.stream(search(payload.q), {
        contentType: "application/x-ndjson",
        headers: { "cache-control": "no-store" }
      })
    )).handle("ready", () => Effect.succeed("ok")))

HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(SearchLive))),
  Layer.provide(NodeHttpServer.layer(Http.createServer, { port: Number(process.env.PORT), host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
