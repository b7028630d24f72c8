/**
 * GET /api/pricing/tld throughput and p99 latency, beside two floors measured in the same run:
 * bare node:http returning the same JSON, and a minimal Effect HttpApi server with one endpoint.
 * The real endpoint runs with all its middleware (request id, access log, rate limiting against
 * PostgreSQL, database-backed price data), with its limit raised for the run.
 *
 *   npm run bench -- pricing        (DATABASE_URL selects the database; default: local PostgreSQL
 *                                    when reachable, else the embedded one)
 */
import * as Path from "node:path"
import {
  adminUrl,
  compile,
  load,
  type LoadResult,
  postgresReachable,
  root,
  serviceEnv,
  start,
  writeFigures,
  writeResult
} from "./lib.js"

const usePostgres = await postgresReachable()

const path = "/api/pricing/tld?tld=com&op=register"
const duration = Number(process.env.BENCH_DURATION ?? 10)

const bare = await start(Path.join(root, "bench/servers/bare.mjs"), {})
const bareResult = await load(bare.url + path, { duration })
await bare.stop()

const minimalFile = await compile("bench/servers/minimal-httpapi.ts")
const minimal = await start(minimalFile, {})
const minimalResult = await load(minimal.url + path, { duration })
await minimal.stop()

const mainFile = await compile("src/main.ts")
const service = await start(mainFile, {
  ...serviceEnv,
  LOG_LEVEL: "info",
  RATE_LIMIT_PRICING_TLD: "1000000000",
  ...(usePostgres ? { DATABASE_URL: adminUrl } : { DATA_DIR: Path.join(root, "bench/.build/data") })
})
const serviceResult = await load(service.url + path, { duration })
await service.stop()

const row = (name: string, r: LoadResult) =>
  `| ${name} | ${r.rps.toLocaleString("en-US")} | ${r.p50} | ${r.p99} | ${r.errors + r.non2xx} |`
const ratio = (a: number, b: number) => (a / b).toFixed(2)

writeFigures("pricing", { bare: bareResult, minimal: minimalResult, service: serviceResult })
writeResult(
  "pricing",
  `# GET /api/pricing/tld throughput

Run: ${
    new Date().toISOString()
  } · Node ${process.version} · autocannon, 50 connections, ${duration} s after a 3 s warm-up ·
database: ${
    usePostgres ? "local PostgreSQL" : "embedded PostgreSQL (PGlite)"
  } · compiled with esbuild (no tsx at run time).

| server | req/s | p50 ms | p99 ms | errors/non-2xx |
|---|---:|---:|---:|---:|
${row("bare node:http (floor)", bareResult)}
${row("minimal Effect HttpApi (framework floor)", minimalResult)}
${row("the service: GET /api/pricing/tld", serviceResult)}

- minimal HttpApi / bare node:http: **${ratio(minimalResult.rps, bareResult.rps)}**
- service / minimal HttpApi: **${ratio(serviceResult.rps, minimalResult.rps)}** (target ≥ 0.70)
- service / bare node:http: ${ratio(serviceResult.rps, bareResult.rps)}

What the service does per request beyond the minimal server: request-id generation and the
X-Request-Id header, one structured JSON access-log line (buffered, one write per event-loop
turn), the rate-limit decision (an ordinal from this process's leased block of the shared
counter: no statement while the block lasts, one \`count = count + n\` per block, see
src/platform/http/RateLimitLease.ts and "Rate-limit leases" in REPORT.md), the RateLimit-*
headers, TLD normalisation and the price lookup (in-process copy of the price table, refreshed
from PostgreSQL every 5 s).

## Where the time goes (measured 2026-11-25, issue 18, compiled service, local PostgreSQL)

The machine was shared with other sessions' benchmarks and test suites (load average 23–37 on 2
cores during every run), so req/s and the ratios above mean little on that day. The changes were
measured as **service CPU per request** (user + system time of the service process ÷ requests;
5,000 requests at 50 connections after a warm-up, and 150–200 one at a time), builds A and B
started alternately, three rounds each, medians:

| build | pricing CPU ms/req @50 | @1 | signed availability CPU ms/req @50 | @1 |
|---|---:|---:|---:|---:|
| main before (e8f4dc2) | 0.68 | 2.05 | 2.33 | 4.60 |
| + guard, locally, metric labels, routes, CORS, signed-path fixes | 0.52 | 2.07 | 1.29–1.34 | 3.53 |
| + FiberRefs set with \`FiberRef.set\` (not \`Effect.setFiberRefs\`) | 0.42 | 1.67 | 1.08 | 3.53 |
| + rate-limit store deadline without \`Effect.timeout\` (shipped) | 0.43 | 1.80 | **1.00** | 3.20 |

The minimal HttpApi server measured 0.15 ms/req @50 the same way (load 7). Pricing went from
0.68 to 0.43 ms (−37 %), signed availability from 2.33 to 1.00 ms (−57 %).

What the profiles (\`node --cpu-prof\`, /tmp summaries of self and inclusive time) showed, and what
changed:

- **The request guard forked the handler and awaited it with \`Effect.timeout\`**: a race forks two
  more fibers (each copying every FiberRef), joins the winner's FiberRefs (\`Fiber.inheritAll\`
  diffs the whole service context: 59 services) and interrupts the loser; then the guard joined
  the handler's FiberRefs again. Now one fork, awaited by one timer and a fiber observer
  (\`platform/outbound/Deadline.ts\`), and only the pre-response handlers (the one FiberRef a handler
  changes for the response) are carried back.
- **\`serverMiddleware\`** used \`Effect.locally\` twice and \`appendPreResponseHandler\`; the request's
  root fiber ends with the request, so the three FiberRefs are now set once, nothing restored.
  (\`Effect.setFiberRefs\` was tried first and was slower: it sets every FiberRef one by one.)
- **Metrics**: a fresh label array per request defeated Effect's per-array cache of tagged
  metrics, so each request built, hashed and looked up two new metric keys. Label arrays are now
  made once per (method, route, status).
- **Route matching** (guard, access log, metrics) scanned ~90 regexes per call; literal templates
  are a map lookup now.
- **Global middleware**: the CORS preflight is answered by the request guard; the API has two
  global middlewares (errors, guard) around the router, plus \`serverMiddleware\` at the server.
- **Rate-limit store call**: \`Effect.timeoutFail\` (the same race) per group-committed statement,
  i.e. per request one at a time; now \`Deadline.runWithin\`.
- **Signed path**: the \`invalid_signature\` error (a stack capture, \`BaseEffectError\` in the
  profile) was constructed on every request, also the accepted ones; it is built only when
  refusing. A GET without Content-Length/Transfer-Encoding hashes \`""\` instead of reading the
  stream. The per-credential limit calls the limiter directly instead of providing two services
  (a context copy each).

Checked and left: with no OTLP endpoint the tracer is disabled (\`Layer.setTracerEnabled(false)\`),
so \`sql.execute\` spans are no-op spans (no stack capture, \`captureStackTrace: false\`); the
request span is only made when tracing is on. The access log (buffered, one write per
event-loop turn) is < 1 % of samples. Schema encoders/decoders are built once per endpoint by
HttpApi. The credential is cached in process; its HMAC is ~1 % of the signed path.

Where the rest goes (signed availability under load, profile on the loaded machine): socket
writes (\`writev\`, one per response and one per PostgreSQL statement) and garbage collection lead;
then \`pg\` (the availability lookup is one statement per request, not group-committed, besides the
group-committed admission and rate-limit statements), the Effect fiber runtime, domain-name
parsing (\`tr46\`) and the \`Availability\` class constructor's validation in the handler (those are
in \`src/partner/inventory\`, not changed here). Not done: folding the per-credential rate-limit
increment into the admission statement (3 → 2 round trips per signed request one at a time; under
load both are already group-committed); re-measuring req/s ratios on an idle machine
(\`npm run bench -- pricing\` and \`-- partner\`).
`
)
