/**
 * The scale story: the pricing read, signed availability and signed orders with 1, 2 and 4
 * service processes on one local PostgreSQL. One autocannon per process (50 connections split
 * between them, run side by side in this process), so no balancer sits in the path; req/s is
 * the sum. (The memory of one process is bench/memory.ts.)
 *
 *   npm run bench -- scale        (BENCH_DURATION seconds per run, default 10; BENCH_PROCESSES=1,2,4)
 */
import autocannon from "autocannon"
import { randomBytes } from "node:crypto"
import { signRequest } from "../src/partner-client/index.js"
import {
  compile,
  partnerRequests,
  privateDatabase,
  type Running,
  seedPartner,
  serviceEnv,
  start,
  writeFigures,
  writeResult
} from "./lib.js"

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = 50
const counts = (process.env.BENCH_PROCESSES ?? "1,2,4").split(",").map(Number)
const LISTINGS = 400_000

const database = await privateDatabase(`bench_scale_${randomBytes(4).toString("hex")}`)
const env = {
  ...serviceEnv,
  TRUST_PROXY: "true",
  DATABASE_URL: database.url,
  SANDBOX_INVENTORY: "false",
  DEMO_LISTINGS: "false",
  RATE_LIMIT_PRICING_TLD: "1000000000",
  RATE_LIMITS: JSON.stringify({ partner_api: 1_000_000_000 })
}
const mainFile = await compile("src/main.ts")
const cliFile = await compile("src/cli.ts")

type Figure = { rps: number; p50: number; p99: number; bad: number }
const results: Record<number, Record<string, Figure>> = {}
const running: Array<Running> = []
try {
  // The first process applies the migrations; the CLI needs them.
  running.push(await start(mainFile, env))
  const cred = await seedPartner(cliFile, env, LISTINGS)
  let first = 2 // each process of each run orders its own range of 20,000 domains (no 409s)
  for (const n of counts) {
    while (running.length < n) running.push(await start(mainFile, { ...env, WORKERS: "false" }))
    while (running.length > n) await running.pop()!.stop()
    results[n] = {}
    for (const name of ["pricing", "availability", "orders"] as const) {
      const per = Math.max(1, Math.floor(connections / n))
      const runAll = (seconds: number) =>
        Promise.all(running.map((s, i) => {
          const reqs = partnerRequests(signRequest, cred, LISTINGS, first + i * 20_000)
          return autocannon({ url: s.url, connections: per, duration: seconds, requests: reqs[name] as any })
        }))
      await runAll(2)
      const rs = await runAll(duration)
      const sum = rs.reduce((a, r) => a + r.requests.average, 0)
      results[n][name] = {
        rps: Math.round(sum),
        p50: Math.max(...rs.map((r) => r.latency.p50)),
        p99: Math.max(...rs.map((r) => r.latency.p99)),
        bad: rs.reduce((a, r) => a + r.errors + r.non2xx, 0)
      }
      console.log(n, name, results[n][name])
      if (name !== "pricing") first += n * 20_000
    }
  }
} finally {
  while (running.length > 0) await running.pop()!.stop()
  await database.drop().catch(() => undefined)
}

writeFigures("scale", { results, counts })
const base = results[counts[0]!]!
const rows = (["pricing", "availability", "orders"] as const).map((name) =>
  `| ${name} | ${
    counts.map((n) =>
      `${results[n]![name]!.rps.toLocaleString("en-US")} (${
        (results[n]![name]!.rps / base[name]!.rps).toFixed(2)
      }×, p99 ${results[n]![name]!.p99} ms)`
    ).join(" | ")
  } |`
).join("\n")
writeResult(
  "scale",
  `# Several service processes on one PostgreSQL

Run: ${
    new Date().toISOString()
  } · Node ${process.version} · one autocannon per process (${connections} connections in all),
${duration} s after a 2 s warm-up · local PostgreSQL · compiled with esbuild · everything on the same 2 cores.

| request | ${counts.map((n) => `${n} process${n > 1 ? "es" : ""}`).join(" | ")} |
|---|${counts.map(() => "---:").join("|")}|
${rows}

(req/s summed over the processes; × = against ${counts[0]} process; p99 = the worst process's.)

With 2 cores shared by PostgreSQL, the load generator and the service processes, more processes
cannot add CPU: the figures show how much of the single-process cost is per-process serialisation
(event loop, pool) rather than CPU. Orders of one partner no longer wait on a lock in PostgreSQL
(migrations 0160, 0161; see NOTES.md): where more processes add nothing, the 2 cores are the limit.
`
)
