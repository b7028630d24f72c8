/**
 * Partner API throughput on the local PostgreSQL (compiled build, loopback only):
 * - signed GET /api/partner/v1/availability (HMAC verification + nonce insert + rate limit)
 *   beside an unsigned public read (GET /api/pricing/tld) on the same server: the signing overhead;
 * - signed POST /api/partner/v1/orders (idempotency claim, listing lock, order, timeline, outbox
 *   event, stored response in one transaction), each request a new domain and key.
 *
 *   npm run bench -- partner        (BENCH_DURATION seconds per run, default 10)
 */
import autocannon from "autocannon"
import { randomBytes } from "node:crypto"
import { execFileSync } from "node:child_process"
import * as Path from "node:path"
import pg from "pg"
import { signRequest } from "../src/partner-client/index.js"
import { compile, privateDatabase, root, serviceEnv, start, writeResult } from "./lib.js"

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = 50

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
  const N = 200_000
  await db.query(`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents)
    select 'lst_b' || g, 'sandbox', 'bench' || g || '.com', 'bench' || g || '.com', 'com', 'bench' || g, 1000, 500
    from generate_series(0, ${N}) g`)
  await db.end()

  const run = async (opts: autocannon.Options) => {
    await autocannon({ ...opts, duration: 3 })
    const r = await autocannon(opts)
    return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, bad: r.errors + r.non2xx, total: r.requests.total }
  }

  const unsigned = await run({ url: `${service.url}/api/pricing/tld?tld=com&op=register`, connections, duration, headers: { "x-forwarded-proto": "https" } })

  const availabilityPath = "/api/partner/v1/availability?domain=bench1.com"
  const signed = await run({
    url: service.url,
    connections,
    duration,
    requests: [{
      method: "GET",
      path: availabilityPath,
      setupRequest: (req: any) => ({
        ...req,
        headers: { "x-forwarded-proto": "https", ...signRequest(cred, { method: "GET", url: availabilityPath }) }
      })
    }]
  } as any)

  let next = 2
  const orders = await run({
    url: service.url,
    connections,
    duration,
    requests: [{
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
  } as any)

  const row = (name: string, r: typeof unsigned) => `| ${name} | ${r.rps.toLocaleString("en-US")} | ${r.p50} | ${r.p99} | ${r.bad} |`
  writeResult(
    "partner",
    `# Partner API throughput

Run: ${new Date().toISOString()} · Node ${process.version} · autocannon, ${connections} connections, ${duration} s after a 3 s warm-up ·
local PostgreSQL · compiled with esbuild · one service process on the same 2 cores as the load generator.

| request | req/s | p50 ms | p99 ms | errors/non-2xx |
|---|---:|---:|---:|---:|
${row("unsigned public read: GET /api/pricing/tld", unsigned)}
${row("signed GET /api/partner/v1/availability", signed)}
${row("signed POST /api/partner/v1/orders (new domain + key each)", orders)}

- signed availability / unsigned public read: **${(signed.rps / unsigned.rps).toFixed(2)}** (the signing overhead:
  HMAC + SHA-256, a credential lookup, a nonce insert and a per-credential rate-limit count per request)
- orders: each is one transaction (idempotency claim, listing row lock, order, timeline, outbox event, stored response);
  non-2xx in the orders row would be 409s from domains reused after ${N.toLocaleString("en-US")} orders.
`
  )
} finally {
  await service.stop()
  await database.drop().catch(() => undefined)
}
