/**
 * `npm run bench [-- name ...]`: runs the named benchmarks (default: all), each writing its
 * figures to bench/results/<name>.md (and .json), then writes bench/results/REPORT.md: every
 * figure of issues 18 and 35 beside its floor (measured in the same run where there is one) and its
 * target, from the latest results of each benchmark (`npm run bench -- report`: only that).
 * Traffic stays on 127.0.0.1.
 */
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

import { TARGETS } from "./targets.js"

const dir = import.meta.dirname
const all = Fs.readdirSync(dir).filter((f) => f.endsWith(".ts") && !["run.ts", "lib.ts", "profile.ts"].includes(f)).map(
  (f) => f.slice(0, -3)
)
// `npm run bench -- report`: only rewrite REPORT.md from the latest results.
const args = process.argv.slice(2)
const chosen = args[0] === "report" ? [] : args.length > 0 ? args : all
for (const name of chosen) {
  if (!all.includes(name)) throw new Error(`unknown benchmark ${name}; have: ${all.join(", ")}`)
  console.log(`\n=== bench: ${name} ===`)
  // Node 20 has WebSocket (bench/lib.ts liveHeapMb) only behind a flag; later versions have it always.
  const flags = typeof WebSocket === "undefined" ? ["--experimental-websocket"] : []
  const r = spawnSync(process.execPath, [...flags, "--import", "tsx", Path.join(dir, `${name}.ts`)], {
    stdio: "inherit"
  })
  if (r.status !== 0) process.exitCode = 1
}

// --- REPORT.md ----------------------------------------------------------------------------------
const results = Path.join(dir, "results")
const read = (name: string): any => {
  try {
    return JSON.parse(Fs.readFileSync(Path.join(results, `${name}.json`), "utf8"))
  } catch {
    return undefined
  }
}
const pricing = read("pricing")
const partner = read("partner")
const search = read("search")
const scale = read("scale")
const listings = read("listings")
const memory = read("memory")
const frontend = read("frontend")
const startup = read("startup")
const framework = read("framework")

const n = (x: number | undefined, digits = 0) =>
  x === undefined || Number.isNaN(x)
    ? "n/a"
    : x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const met = (ok: boolean | undefined) => (ok === undefined ? "not run" : ok ? "met" : "**missed**")
const when = (r: any) => (r ? r.at.slice(0, 16).replace("T", " ") : "—")

const rows: Array<string> = []
if (partner) {
  const ratio = partner.signed.rps / partner.unsigned.rps
  // Below 1,000 req/s for the plain read the machine was too loaded for a ratio to mean anything.
  const loaded = partner.unsigned.rps < 1000
  rows.push(
    `| signed \`GET /api/partner/v1/availability\` ÷ unsigned \`GET /api/pricing/tld\`, same run | ${n(ratio, 2)} (${
      n(partner.signed.rps)
    } vs ${n(partner.unsigned.rps)} req/s) | — | ≥ ${TARGETS.signedRatio} | ${
      loaded ? "not measurable (machine overloaded)" : met(ratio >= TARGETS.signedRatio)
    } | ${when(partner)} |`
  )
  rows.push(
    `| signed \`POST /api/partner/v1/orders\`, new domain and key each | ${
      n(partner.orders.rps)
    } req/s, p99 ${partner.orders.p99} ms | PostgreSQL: ${
      n(partner.floorCommits)
    } single-row insert commits/s (pgbench, 20 clients) | ≥ ${TARGETS.ordersRps} req/s, p99 ≤ ${TARGETS.ordersP99Ms} ms | ${
      met(partner.orders.rps >= TARGETS.ordersRps && partner.orders.p99 <= TARGETS.ordersP99Ms)
    } | ${when(partner)} |`
  )
}
if (pricing) {
  const ratio = pricing.service.rps / pricing.minimal.rps
  rows.push(
    `| \`GET /api/pricing/tld\` ÷ minimal Effect HttpApi server, same run | ${n(ratio, 2)} (${
      n(pricing.service.rps)
    } vs ${n(pricing.minimal.rps)} req/s) | bare node:http ${n(pricing.bare.rps)} req/s | ≥ ${TARGETS.pricingRatio} | ${
      met(ratio >= TARGETS.pricingRatio)
    } | ${when(pricing)} |`
  )
} else {
  rows.push(
    "| `GET /api/pricing/tld` ÷ minimal Effect HttpApi server, same run | not run | — | ≥ 0.75 | not run (`npm run bench -- pricing`) | — |"
  )
}
if (search) {
  rows.push(
    `| service CPU per 10-name search (one at a time), load ${n(search.load?.[0], 1)} | ${
      n(search.cpuPerSearchMs, 1)
    } ms | node:http ${n(search.floorCpuPerSearchMs, 1)} ms; the same design in a bare Effect HttpApi ${
      n(search.effectFloorCpuPerSearchMs, 1)
    } ms (same run, alternating) | ≤ ${TARGETS.searchCpuMs} ms | ${
      met(search.cpuPerSearchMs <= TARGETS.searchCpuMs)
    } (the target is below the framework floor: bench/results/search.md) | ${when(search)} |`
  )
  rows.push(
    `| 50 concurrent searches, primary row p50 (upstream answers in 50 ms) | ${
      n(search.concurrent.primaryP50, 0)
    } ms | 50 ms + 1 RTT | ≤ ${TARGETS.concurrentPrimaryP50Ms} ms | ${
      met(search.concurrent.primaryP50 <= TARGETS.concurrentPrimaryP50Ms)
    } | ${when(search)} |`
  )
} else {
  rows.push(
    `| service CPU per 10-name search (one at a time) | not run | — | ≤ ${TARGETS.searchCpuMs} ms | not run (\`npm run bench -- search\`) | — |`
  )
  rows.push(
    `| 50 concurrent searches, primary row p50 | not run | 50 ms + 1 RTT | ≤ ${TARGETS.concurrentPrimaryP50Ms} ms | not run | — |`
  )
}
if (memory) {
  rows.push(
    `| RSS idle / after ${
      n(memory.requests)
    } mixed requests (real PostgreSQL); live heap after a full GC in brackets | ${memory.idle.rssMb} MB (${memory.idle.heapMb}) / ${memory.loaded.rssMb} MB (${memory.loaded.heapMb}) | — | ≤ ${TARGETS.rssIdleMb} MB / ≤ ${TARGETS.rssLoadedMb} MB | ${
      met(memory.idle.rssMb <= TARGETS.rssIdleMb && memory.loaded.rssMb <= TARGETS.rssLoadedMb)
    } | ${when(memory)} |`
  )
} else {
  rows.push(
    `| RSS idle / after 20,000 mixed requests (real PostgreSQL) | not run | — | ≤ ${TARGETS.rssIdleMb} MB / ≤ ${TARGETS.rssLoadedMb} MB | not run (\`npm run bench -- memory\`) | — |`
  )
}
// The storefront's budgets (issue 33), measured in Chromium by bench/frontend.ts.
const frontTable = frontend
  ? `## Front (the storefront in Chromium)

Run ${when(frontend)} UTC on the production build, ${frontend.runs} sessions at 390 × 844 after two warm-up
ones, ${frontend.database} database, load average ${frontend.loadavg.before[0]} before and ${
    frontend.loadavg.after[0]
  } after on ${frontend.cpus} cores. Details: bench/results/frontend.md.

| budget | median | p90 | target | verdict |
|---|---:|---:|---:|---|
| JavaScript on \`/\`, gzipped | ${n(frontend.js.gzipBytes)} B | — | ≤ 30,720 B | ${
    met(frontend.js.gzipBytes <= 30 * 1024)
  } |
| first contentful paint of \`/\` (localhost) | ${n(frontend.fcpMs.median, 1)} ms | ${
    n(frontend.fcpMs.p90, 1)
  } ms | ≤ 300 ms | ${met(frontend.fcpMs.median <= 300)} |
| primary row visible after the stream delivers it (in the DOM; painted) | ${
    n(frontend.primaryShownMs.median, 1)
  } ms; ${n(frontend.primaryFrameMs.median, 1)} ms | ${n(frontend.primaryShownMs.p90, 1)} ms; ${
    n(frontend.primaryFrameMs.p90, 1)
  } ms | ≤ 20 ms | ${met(frontend.primaryShownMs.median <= 20)} |
| layout shift while rows arrive (CLS) | ${frontend.cls.median.toFixed(3)} | max ${frontend.cls.max.toFixed(3)} | 0 | ${
    met(frontend.cls.max === 0)
  } |
`
  : `## Front (the storefront in Chromium)

Not run: \`npm run bench -- frontend\`.
`

const cost = partner?.cost
const costTable = cost
  ? `## Cost per request, load-independent (one request at a time, counted at the database)

| request | PostgreSQL round trips | transactions (database-wide, an upper bound) | service CPU ms |
|---|---:|---:|---:|
| unsigned \`GET /api/pricing/tld\` | ${cost.pricing.roundTrips} | ${cost.pricing.transactions} | ${cost.pricing.cpuMs} |
| signed \`GET /api/partner/v1/availability\` | ${cost.availability.roundTrips} | ${cost.availability.transactions} | ${cost.availability.cpuMs} |
| signed \`POST /api/partner/v1/orders\` | ${cost.orders.roundTrips} | ${cost.orders.transactions} | ${cost.orders.cpuMs} |

Before issue 18's changes (same counting, 2026-11-24): availability 5 round trips, orders 19.
Transactions are counted database-wide (pg_stat_database), so they include the benchmark's other
service process's background workers: compare round trips, which are counted on the measured
process's own connections (background round trips over an idle second subtracted). Round trips under concurrency are fewer still: the nonce
admission and the rate-limit counter are group-committed across concurrent requests.
`
  : ""

const scaleTable = scale
  ? `## Several processes on one PostgreSQL (req/s summed; × against one process)

| request | ${scale.counts.map((c: number) => `${c} process${c > 1 ? "es" : ""}`).join(" | ")} |
|---|${scale.counts.map(() => "---:").join("|")}|
${
    ["pricing", "availability", "orders"].map((k) =>
      `| ${k} | ${
        scale.counts.map((c: number) =>
          `${n(scale.results[c][k].rps)} (${n(scale.results[c][k].rps / scale.results[scale.counts[0]][k].rps, 2)}×)`
        ).join(" | ")
      } |`
    ).join("\n")
  }

See bench/results/scale.md for latencies and the set-up.
`
  : ""

// Start-up: each figure with its spread and the load average, beside the baseline measured in
// the same rounds when there was one (bench/startup.ts).
const startupTrees: Array<string> = startup ? Object.keys(startup.figures) : []
const startupCell = (f: any) =>
  f ?
    `${(f.medianMs / 1000).toFixed(2)} s (${(f.minMs / 1000).toFixed(2)}–${
      (f.maxMs / 1000).toFixed(2)
    }), load ${f.load.min}–${f.load.max}` :
    "not run"
const startupTable = startup
  ? `## Start-up

Median (min–max) of ${startup.rounds} rounds on ${startup.cores} cores, run ${when(startup)} UTC, with the 1-minute load
average at each measurement; ${
    startup.baseline ? "before = the baseline tree, measured in the same rounds, alternating" : "no baseline this run"
  }. Details: bench/results/startup.md.

| measure | ${startupTrees.join(" | ")} |
|---|${startupTrees.map(() => "---").join("|")}|
${
    Object.keys(startup.figures[startupTrees[0]!]).map((m) =>
      `| ${m} | ${startupTrees.map((t) => startupCell(startup.figures[t][m])).join(" | ")} |`
    ).join("\n")
  }
`
  : ""

// The framework's share of the pricing read (bench/framework.ts): CPU per request by layer.
const ms3 = (x: number | undefined) => n(x, 3)
const frameworkTable = framework
  ? `## Framework share (GET /api/pricing/tld, CPU per request)

Run ${
    when(framework)
  } UTC, Node ${framework.node}, ${framework.rounds} alternating rounds of the service and the minimal
Effect HttpApi server on the same request, load average ${framework.loadavg.start[0]} at the start and ${
    framework.loadavg.end[0]
  } at the end on ${framework.cores} cores. CPU from /proc; layers by the inclusive profile time of their source
files, scaled to it (a lower bound: the fiber scheduler runs a layer's continuations outside its frames).
Details, self time by package and what the attribution can see: bench/results/framework.md.

| layer | CPU ms/request one at a time | under load |
|---|---:|---:|
${framework.layers.map((l: any) => `| ${l.layer} | ${ms3(l.sequential)} | ${ms3(l.loaded)} |`).join("\n")}
| the service, total (median of rounds) | ${ms3(framework.cpu.service.sequential.median)} | ${
    ms3(framework.cpu.service.loaded.median)
  } |
| minimal HttpApi server, total (the floor) | ${ms3(framework.cpu.minimal.sequential.median)} | ${
    ms3(framework.cpu.minimal.loaded.median)
  } |
| the service's own share (service − minimal, median of rounds) | ${ms3(framework.ownShare.sequential.median)} | ${
    ms3(framework.ownShare.loaded.median)
  } |
`
  : `## Framework share (GET /api/pricing/tld, CPU per request)

Not run: \`npm run bench -- framework\`.
`

Fs.writeFileSync(
  Path.join(results, "REPORT.md"),
  `# Performance report (issues 18 and 35)

Written by \`npm run bench\` from the latest result of each benchmark (bench/results/*.json; the
column "run" says when each was measured). Floors are measured in the same run as their figure.
All on one 2-core machine shared by the load generator, PostgreSQL and the service; absolute
req/s move with the machine's load (see each benchmark's page), ratios and the per-request costs
below much less.

| measure | now | floor on this machine | target | verdict | run (UTC) |
|---|---:|---:|---:|---|---|
${rows.join("\n")}

${frontTable}
${costTable}
${scaleTable}
${startupTable}
${frameworkTable}
${
    listings
      ? `Listings at depth: see bench/results/listings.md (cursor pages at depth 900,000 within 1.5× of page 1).\n`
      : ""
  }
## Where the time goes

${
    partner?.profile ?
      `Signed Partner path (a CPU profile of the service under signed availability then orders load, from
the partner benchmark; full tables in bench/results/partner.md): the largest areas are
${partner.profile.areas.slice(0, 6).map((a: any) => `${a.name} ${(a.share * 100).toFixed(0)} %`).join(", ")}.` :
      "No partner profile in the latest results."
  }

${Fs.existsSync(Path.join(results, "NOTES.md")) ? Fs.readFileSync(Path.join(results, "NOTES.md"), "utf8") : ""}
`
)
console.log(`\nwrote ${Path.join(results, "REPORT.md")}`)
