/**
 * Partner API throughput on the local PostgreSQL (compiled build, loopback only):
 * - signed GET /api/partner/v1/availability (HMAC verification + nonce + rate limit)
 *   beside an unsigned public read (GET /api/pricing/tld) on the same server: the signing overhead;
 * - signed POST /api/partner/v1/orders (idempotency claim, listing lock, order, ledger, timeline,
 *   outbox event, stored response in one transaction), each request a new domain and key.
 *
 * Besides req/s (load-dependent), the load-independent costs per request: PostgreSQL round trips
 * (counted by a protocol-aware proxy in front of the database), transactions (pg_stat_database)
 * and service CPU, measured one request at a time on a second service process.
 *
 *   npm run bench -- partner        (BENCH_DURATION seconds per run, default 10)
 */
import autocannon from "autocannon"
import { randomBytes } from "node:crypto"
import { execFileSync } from "node:child_process"
import * as Path from "node:path"
import pg from "pg"
import { signRequest } from "../src/partner-client/index.js"
import * as Fs from "node:fs"
import {
  compile,
  countingPgProxy,
  outDir,
  pgbenchInsertCommits,
  profileMarkdown,
  summariseProfile,
  privateDatabase,
  processCpuMs,
  serviceEnv,
  start,
  transactionsOf,
  writeFigures,
  writeResult
} from "./lib.js"

/** BENCH_COST_ONLY=1: stop after the per-request costs (quick A/B of a change). */
class CostOnly extends Error {}

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = 50
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 300)

const database = await privateDatabase(`bench_partner_${randomBytes(4).toString("hex")}`)
const databaseUrl = database.url

const env = {
  ...serviceEnv,
  TRUST_PROXY: "true",
  DATABASE_URL: databaseUrl,
  SANDBOX_INVENTORY: "false",
  DEMO_LISTINGS: "false",
  RATE_LIMIT_PRICING_TLD: "1000000000",
  RATE_LIMITS: JSON.stringify({ partner_api: 1_000_000_000 })
}

const mainFile = await compile("src/main.ts")
const cliFile = await compile("src/cli.ts")
const service = await start(mainFile, env)
const proxy = await countingPgProxy(databaseUrl)
// The same service again, its database behind the counting proxy (one request at a time only).
const counted = await start(mainFile, { ...env, DATABASE_URL: proxy.url, WORKERS: "false" })
const N = 200_000
try {
  const created = JSON.parse(
    execFileSync(process.execPath, [cliFile, "partner", "create", "--name", "Bench", "--env", "sandbox", "--scopes", "search,buy", "--json"], {
      cwd: Path.dirname(cliFile),
      env: { ...process.env, ...env }
    }).toString()
  )
  const cred = { keyId: created.key_id, secret: created.secret }
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  await db.query(`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents)
    select 'lst_b' || g, 'sandbox', 'bench' || g || '.com', 'bench' || g || '.com', 'com', 'bench' || g, 1000, 500
    from generate_series(0, ${N}) g`)
  await db.end()

  const pricingPath = "/api/pricing/tld?tld=com&op=register"
  const availabilityPath = "/api/partner/v1/availability?domain=bench1.com"
  let next = 2
  const requests = {
    pricing: [{ method: "GET", path: pricingPath, headers: { "x-forwarded-proto": "https" } }],
    availability: [{
      method: "GET",
      path: availabilityPath,
      setupRequest: (req: any) => ({
        ...req,
        headers: { "x-forwarded-proto": "https", ...signRequest(cred, { method: "GET", url: availabilityPath }) }
      })
    }],
    orders: [{
      method: "POST",
      path: "/api/partner/v1/orders",
      setupRequest: (req: any) => {
        const domain = `bench${next++ % N}.com`
        const body = JSON.stringify({ domain, expected_price: 1000, currency: "USD", external_payment_ref: `p-${domain}`, buyer: { email: "b@example.org" } })
        return {
          ...req,
          body,
          headers: {
            "content-type": "application/json",
            "x-forwarded-proto": "https",
            "idempotency-key": crypto.randomUUID(),
            ...signRequest(cred, { method: "POST", url: "/api/partner/v1/orders", body })
          }
        }
      }
    }]
  } as const

  // --- load-independent: round trips, transactions and CPU per request, one at a time ----------
  const perRequest = async (name: keyof typeof requests) => {
    await autocannon({ url: counted.url, connections: 1, amount: 30, requests: requests[name] as any })
    // Background work (price refresh, janitors) over an idle window of the same length is subtracted.
    const idleStart = proxy.roundTrips()
    const idleT0 = performance.now()
    await new Promise((r) => setTimeout(r, 1000))
    const idlePerMs = (proxy.roundTrips() - idleStart) / (performance.now() - idleT0)
    const tx0 = await transactionsOf(databaseUrl)
    const rt0 = proxy.roundTrips()
    const cpu0 = processCpuMs(counted.child.pid)
    const t0 = performance.now()
    const r = await autocannon({ url: counted.url, connections: 1, amount: SEQUENTIAL, requests: requests[name] as any })
    const elapsed = performance.now() - t0
    const cpu = (processCpuMs(counted.child.pid) - cpu0) / SEQUENTIAL
    const roundTrips = (proxy.roundTrips() - rt0 - idlePerMs * elapsed) / SEQUENTIAL
    await new Promise((r) => setTimeout(r, 1200)) // statistics are flushed at most once a second
    const tx = (await transactionsOf(databaseUrl) - tx0 - 2) / SEQUENTIAL // -2: our own two reads
    return { roundTrips: Math.round(roundTrips * 100) / 100, transactions: Math.round(tx * 100) / 100, cpuMs: Math.round(cpu * 100) / 100, bad: r.errors + r.non2xx }
  }
  const cost = {
    pricing: await perRequest("pricing"),
    availability: await perRequest("availability"),
    orders: await perRequest("orders")
  }
  await counted.stop()

  // --- throughput: 50 connections ----------------------------------------------------------------
  const run = async (name: keyof typeof requests) => {
    const opts = { url: service.url, connections, duration, requests: requests[name] as any }
    await autocannon({ ...opts, duration: 3 })
    const r = await autocannon(opts)
    return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, bad: r.errors + r.non2xx, total: r.requests.total }
  }
  console.log(JSON.stringify(cost))
  if (process.env.BENCH_COST_ONLY) throw new CostOnly()
  const unsigned = await run("pricing")
  const signed = await run("availability")
  const orders = await run("orders")

  await service.stop()
  const floorCommits = await pgbenchInsertCommits(databaseUrl)

  // Where the time goes: a CPU profile of a third process under the signed loads.
  const profDir = Path.join(outDir, "profiles")
  Fs.rmSync(profDir, { recursive: true, force: true })
  const profiled = await start(mainFile, { ...env, WORKERS: "false" }, undefined, ["--cpu-prof", `--cpu-prof-dir=${profDir}`])
  for (const name of ["availability", "orders"] as const) {
    await autocannon({ url: profiled.url, connections, duration: Math.min(duration, 5), requests: requests[name] as any })
  }
  await profiled.stop()
  const profFile = Fs.existsSync(profDir) ? Fs.readdirSync(profDir).find((f) => f.endsWith(".cpuprofile")) : undefined
  const profile = profFile ? summariseProfile(Path.join(profDir, profFile)) : undefined

  writeFigures("partner", { unsigned, signed, orders, cost, floorCommits, profile })
  const row = (name: string, r: typeof unsigned, c: typeof cost.pricing) =>
    `| ${name} | ${r.rps.toLocaleString("en-US")} | ${r.p50} | ${r.p99} | ${r.bad} | ${c.roundTrips} | ${c.transactions} | ${c.cpuMs} |`
  writeResult(
    "partner",
    `# Partner API throughput

Run: ${new Date().toISOString()} · Node ${process.version} · autocannon, ${connections} connections, ${duration} s after a 3 s warm-up ·
local PostgreSQL · compiled with esbuild · one service process on the same 2 cores as the load generator.
Round trips, transactions and CPU per request: ${SEQUENTIAL} requests one at a time on a second process whose
database connections go through a counting proxy (round trip = one Sync or simple Query message).

| request | req/s | p50 ms | p99 ms | errors/non-2xx | PG round trips / req | transactions / req | service CPU ms / req |
|---|---:|---:|---:|---:|---:|---:|---:|
${row("unsigned public read: GET /api/pricing/tld", unsigned, cost.pricing)}
${row("signed GET /api/partner/v1/availability", signed, cost.availability)}
${row("signed POST /api/partner/v1/orders (new domain + key each)", orders, cost.orders)}

- signed availability / unsigned public read: **${(signed.rps / unsigned.rps).toFixed(2)}** (target ≥ 0.7)
- orders: ${orders.rps} req/s, p99 ${orders.p99} ms (target ≥ 600 req/s, p99 ≤ 150 ms); floor: PostgreSQL
  ${floorCommits?.toLocaleString("en-US") ?? "n/a (no pgbench)"} single-row insert commits/s (pgbench, 20 clients, same run);
  non-2xx in the orders row would be 409s from domains reused after ${N.toLocaleString("en-US")} orders.

## Where the service's CPU goes under signed availability + orders load

${profile ? profileMarkdown(profile) : "(no profile written)"}
`
  )
} catch (e) {
  if (!(e instanceof CostOnly)) throw e
} finally {
  await service.stop()
  await counted.stop()
  await proxy.close()
  await database.drop().catch(() => undefined)
}
