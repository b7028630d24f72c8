/**
 * Memory of one service process (issue 18): RSS idle after start-up, and after 20,000 mixed
 * requests (the pricing read, signed availability, signed orders) at 50 connections; beside
 * each, the live JavaScript heap after a full garbage collection (through the inspector), which
 * tells what the process really holds from what V8 and the allocator keep for later.
 *
 *   npm run bench -- memory       (BENCH_MIXED_REQUESTS, default 20,000; local PostgreSQL)
 */
import autocannon from "autocannon"
import { randomBytes } from "node:crypto"
import * as Os from "node:os"
import { signRequest } from "../src/partner-client/index.js"
import {
  compile,
  freePort,
  liveHeapMb,
  partnerRequests,
  privateDatabase,
  processRssMb,
  seedPartner,
  serviceEnv,
  start,
  writeFigures,
  writeResult
} from "./lib.js"
import { TARGETS } from "./targets.js"

const LISTINGS = 100_000
const MIXED = Number(process.env.BENCH_MIXED_REQUESTS ?? 20_000)
const connections = 50

const database = await privateDatabase(`bench_memory_${randomBytes(4).toString("hex")}`)
const env = {
  ...serviceEnv,
  DATABASE_URL: database.url,
  WORKERS: "false",
  SANDBOX_INVENTORY: "false",
  DEMO_LISTINGS: "false",
  RATE_LIMIT_PRICING_TLD: "1000000000",
  RATE_LIMITS: JSON.stringify({ partner_api: 1_000_000_000 })
}
const mainFile = await compile("src/main.ts")
const cliFile = await compile("src/cli.ts")

type Sample = { rssMb: number; heapMb: number }
interface Run {
  idle: Sample
  loaded: Sample
  settled: Sample
}
/** RSS moves by tens of MB between runs of one build (V8 heap growth); report the median run. */
const RUNS = Number(process.env.BENCH_MEMORY_RUNS ?? 3)
const runs: Array<Run> = []
try {
  // The first start applies the migrations, which the CLI needs; each measured process is fresh.
  const migrate = await start(mainFile, env)
  const cred = await seedPartner(cliFile, env, LISTINGS)
  await migrate.stop()

  for (let run = 0; run < RUNS; run++) {
    const inspectPort = await freePort()
    const one = await start(mainFile, env, undefined, [`--inspect=127.0.0.1:${inspectPort}`])
    try {
      // Each run orders other listings (an order takes its listing).
      const reqs = partnerRequests(signRequest, cred, LISTINGS, 2 + run * Math.ceil(MIXED / 4))
      await autocannon({ url: one.url, connections: 1, amount: 30, requests: reqs.pricing as any })
      await new Promise((r) => setTimeout(r, 2000))
      const idle = { rssMb: processRssMb(one.child.pid), heapMb: 0 }
      idle.heapMb = await liveHeapMb(inspectPort)
      await autocannon({
        url: one.url,
        connections,
        amount: MIXED,
        requests: [...reqs.pricing, ...reqs.availability, ...reqs.pricing, ...reqs.orders] as any
      })
      const loaded = { rssMb: processRssMb(one.child.pid), heapMb: 0 }
      loaded.heapMb = await liveHeapMb(inspectPort)
      // A minute later: what V8's memory reducer and the allocator have handed back.
      await new Promise((r) => setTimeout(r, 60_000))
      const settled = { rssMb: processRssMb(one.child.pid), heapMb: await liveHeapMb(inspectPort) }
      runs.push({ idle, loaded, settled })
      console.log(`memory run ${run + 1}/${RUNS}:`, JSON.stringify(runs[run]))
    } finally {
      await one.stop()
    }
  }
} finally {
  await database.drop().catch(() => undefined)
}

const median = (pick: (r: Run) => Sample): Sample => {
  const sorted = [...runs].map(pick).sort((a, b) => a.rssMb - b.rssMb)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}
const figures: Run = { idle: median((r) => r.idle), loaded: median((r) => r.loaded), settled: median((r) => r.settled) }

writeFigures("memory", { ...figures, requests: MIXED, runs })
const met = (ok: boolean) => (ok ? "met" : "**missed**")
writeResult(
  "memory",
  `# Memory of one service process

Run: ${
    new Date().toISOString()
  } · Node ${process.version} · local PostgreSQL · compiled with esbuild · background workers off ·
${
    MIXED.toLocaleString("en-US")
  } mixed requests (pricing read, signed availability, pricing read, signed order) at ${connections} connections ·
load average at the end ${Os.loadavg().map((l) => l.toFixed(1)).join(" / ")} on ${Os.cpus().length} cores.

Median of ${runs.length} runs, each a fresh process on the same database (each column's median on its own);
every run: ${
    runs.map((r) => `${r.idle.rssMb} / ${r.loaded.rssMb} / ${r.settled.rssMb}`).join(" · ")
  } MB (idle / loaded / settled).

| when | RSS MB | live heap after a full GC, MB | target (RSS) |
|---|---:|---:|---|
| idle, after start-up and 30 requests | ${figures.idle.rssMb} | ${figures.idle.heapMb} | ≤ ${TARGETS.rssIdleMb} MB: ${
    met(figures.idle.rssMb <= TARGETS.rssIdleMb)
  } |
| after ${
    MIXED.toLocaleString("en-US")
  } mixed requests | ${figures.loaded.rssMb} | ${figures.loaded.heapMb} | ≤ ${TARGETS.rssLoadedMb} MB: ${
    met(figures.loaded.rssMb <= TARGETS.rssLoadedMb)
  } |
| one idle minute later | ${figures.settled.rssMb} | ${figures.settled.heapMb} | — |

RSS counts what the process holds from the system, including heap pages V8 keeps after a collection
and the allocator's free lists; the live heap is what survives a full collection. A live heap that
returns to its idle size after the load means nothing accumulates per request.
`
)
