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
import { compile, type LoadResult, load, root, start, writeResult } from "./lib.js"

const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const usePostgres = await fetch("http://127.0.0.1:5432").then(() => true, (e) => String(e.cause?.code) !== "ECONNREFUSED")

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
  NODE_ENV: "production",
  SERVICE_SECRET: "bench-secret-bench-secret-bench-secret",
  HOST: "127.0.0.1",
  LOG_LEVEL: "info",
  RATE_LIMIT_PRICING_TLD: "1000000000",
  ...(usePostgres ? { DATABASE_URL: databaseUrl } : { DATA_DIR: Path.join(root, "bench/.build/data") })
})
const serviceResult = await load(service.url + path, { duration })
await service.stop()

const row = (name: string, r: LoadResult) =>
  `| ${name} | ${r.rps.toLocaleString("en-US")} | ${r.p50} | ${r.p99} | ${r.errors + r.non2xx} |`
const ratio = (a: number, b: number) => (a / b).toFixed(2)

writeResult(
  "pricing",
  `# GET /api/pricing/tld throughput

Run: ${new Date().toISOString()} · Node ${process.version} · autocannon, 50 connections, ${duration} s after a 3 s warm-up ·
database: ${usePostgres ? "local PostgreSQL" : "embedded PostgreSQL (PGlite)"} · compiled with esbuild (no tsx at run time).

| server | req/s | p50 ms | p99 ms | errors/non-2xx |
|---|---:|---:|---:|---:|
${row("bare node:http (floor)", bareResult)}
${row("minimal Effect HttpApi (framework floor)", minimalResult)}
${row("the service: GET /api/pricing/tld", serviceResult)}

- minimal HttpApi / bare node:http: **${ratio(minimalResult.rps, bareResult.rps)}**
- service / minimal HttpApi: **${ratio(serviceResult.rps, minimalResult.rps)}** (target ≥ 0.70)
- service / bare node:http: ${ratio(serviceResult.rps, bareResult.rps)}

What the service does per request beyond the minimal server: request-id generation and the
X-Request-Id header, one structured JSON access-log line, the rate-limit decision (one
\`INSERT … ON CONFLICT DO UPDATE\` on the shared counter, with concurrent requests of the same
bucket group-committed into one statement), the RateLimit-* headers, TLD normalisation and the
price lookup (in-process cache of the price table, refreshed from PostgreSQL every 5 s).
`
)
