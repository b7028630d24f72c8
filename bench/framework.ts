/**
 * The framework's share of GET /api/pricing/tld (issue 35 item 4): the service and the minimal
 * Effect HttpApi server (bench/servers/minimal-httpapi.ts) answer the same request, in alternating
 * rounds, one at a time and under load; CPU per request comes from /proc (user + system of the
 * server process ÷ requests), and a CPU profile of each (`--cpu-prof`) attributes it to the layers
 * of the path by the source files of their frames (bench/profile.ts says what that can see).
 *
 *   npm run bench -- framework     (BENCH_ROUNDS, BENCH_REQUESTS, BENCH_DURATION override the sizes)
 */
import autocannon from "autocannon"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import {
  compile,
  postgresReachable,
  privateDatabase,
  processCpuMs,
  root,
  type Running,
  serviceEnv,
  start,
  writeFigures,
  writeResult
} from "./lib.js"
import { attribute, findProfile, LAYERS, nowUs, stats, type Window } from "./profile.js"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const WARMUP = 300 // requests before each one-at-a-time phase, not counted
const SEQUENTIAL = Number(process.env.BENCH_REQUESTS ?? 2000)
const LOAD_SECONDS = Number(process.env.BENCH_DURATION ?? 5)
const CONNECTIONS = 50, PATH = "/api/pricing/tld?tld=com"
const usePostgres = await postgresReachable()
const database = usePostgres ? await privateDatabase("bench_framework") : undefined
const profDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "bench-framework-"))
const load1 = () => Math.round(Os.loadavg()[0]! * 10) / 10
const loadAtStart = Os.loadavg().map((l) => Math.round(l * 10) / 10)
const servers = {
  service: {
    file: await compile("src/main.ts"),
    env: {
      ...serviceEnv,
      // As bench/pricing.ts: the access log on (info), the endpoint's limit out of reach.
      LOG_LEVEL: "info",
      RATE_LIMIT_PRICING_TLD: "1000000000",
      // Per-request CPU only: no background workers, no demo data.
      WORKERS: "false",
      DEMO_LISTINGS: "false",
      ...(database ? { DATABASE_URL: database.url } : { DATA_DIR: Path.join(root, "bench/.build/data-framework") })
    }
  },
  minimal: { file: await compile("bench/servers/minimal-httpapi.ts"), env: {} }
}
type Name = keyof typeof servers
const names: ReadonlyArray<Name> = ["service", "minimal"]

const running = {} as Record<Name, Running & { spawnedUs: number; dir: string }>
for (const name of names) {
  const dir = Path.join(profDir, name)
  Fs.mkdirSync(dir)
  const spawnedUs = nowUs()
  const r = await start(servers[name].file, servers[name].env, PATH, ["--cpu-prof", `--cpu-prof-dir=${dir}`])
  running[name] = Object.assign(r, { spawnedUs, dir })
}

const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
const get = (url: string) =>
  new Promise<number>((resolve, reject) =>
    Http.get(url, { agent }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    }).on("error", reject)
  )

interface Phase {
  readonly cpuMsPerReq: number
  readonly requests: number
  readonly refused: number
  readonly window: Window
  readonly load: number
  readonly rps: number
}
type Kind = "sequential" | "loaded"
const kinds: ReadonlyArray<Kind> = ["sequential", "loaded"]

const measure = async (name: Name, kind: Kind): Promise<Phase> => {
  const { url, child } = running[name]
  let refused = 0
  if (kind === "sequential") { for (let i = 0; i < WARMUP; i++) await get(url + PATH) }
  else await autocannon({ url: url + PATH, connections: CONNECTIONS, duration: 1 })
  const cpu0 = processCpuMs(child.pid)
  const from = nowUs()
  let requests: number
  if (kind === "sequential") {
    for (let i = 0; i < SEQUENTIAL; i++) if ((await get(url + PATH)) !== 200) refused++
    requests = SEQUENTIAL
  } else {
    const r = await autocannon({ url: url + PATH, connections: CONNECTIONS, duration: LOAD_SECONDS })
    requests = r.requests.total
    refused = r.non2xx + r.errors
  }
  const to = nowUs()
  const cpu = processCpuMs(child.pid) - cpu0
  return {
    cpuMsPerReq: cpu / requests,
    requests,
    refused,
    window: { from, to },
    load: load1(),
    rps: requests / ((to - from) / 1e6)
  }
}

// A first pass of each phase that is not counted: JIT and pools warm before round 1 (a first
// measured round was 2–4× the later ones without it).
for (const kind of kinds) for (const name of names) await measure(name, kind)

const phases: Record<Name, Record<Kind, Array<Phase>>> = {
  service: { sequential: [], loaded: [] },
  minimal: { sequential: [], loaded: [] }
}
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of kinds) {
    for (const name of names) {
      const p = await measure(name, kind)
      phases[name][kind].push(p)
      console.log(
        `round ${round + 1} ${name} ${kind}: ${p.cpuMsPerReq.toFixed(3)} ms/req (${p.requests} req, load ${p.load})`
      )
    }
  }
}
const loadAtEnd = Os.loadavg().map((l) => Math.round(l * 10) / 10)

// SIGTERM ends both through NodeRuntime.runMain, and node writes the profile on exit.
for (const name of names) await running[name].stop()
await database?.drop()

const files = {
  service: findProfile(running.service.dir, running.service.spawnedUs),
  minimal: findProfile(running.minimal.dir, running.minimal.spawnedUs)
}

/**
 * One server's phase over the rounds: /proc CPU ms per request (median, spread; and pooled, total
 * CPU ÷ total requests, which the profile shares scale to), and the profile's non-idle time per
 * request (wall time of the main thread, not CPU).
 */
const figuresOf = (name: Name, kind: Kind) => {
  const ps = phases[name][kind]
  const requests = ps.reduce((s, p) => s + p.requests, 0)
  const attribution = attribute(files[name], ps.map((p) => p.window))
  return {
    cpu: stats(ps.map((p) => p.cpuMsPerReq)),
    cpuPooled: ps.reduce((s, p) => s + p.cpuMsPerReq * p.requests, 0) / requests,
    requests,
    refused: ps.reduce((s, p) => s + p.refused, 0),
    rps: stats(ps.map((p) => p.rps)),
    load: stats(ps.map((p) => p.load)),
    profileMsPerReq: attribution.busyUs / 1000 / requests,
    attribution
  }
}
type PhaseFigures = ReturnType<typeof figuresOf>
const figures = {
  service: { sequential: figuresOf("service", "sequential"), loaded: figuresOf("service", "loaded") },
  minimal: { sequential: figuresOf("minimal", "sequential"), loaded: figuresOf("minimal", "loaded") }
}
/** The service's own share per round: service minus the minimal server of the same round. */
const ownShare = (kind: Kind) =>
  stats(phases.service[kind].map((p, i) => p.cpuMsPerReq - phases.minimal[kind][i]!.cpuMsPerReq))

/** A profile µs total as /proc CPU ms per request: its share of the busy samples × pooled CPU/request. */
const scaled = (
  f: PhaseFigures,
  us: number
) => (f.attribution.busyUs === 0 ? 0 : (us / f.attribution.busyUs) * f.cpuPooled)

const layerRows = LAYERS.map((l) => ({
  layer: l.name,
  files: l.files,
  sequential: scaled(figures.service.sequential, figures.service.sequential.attribution.layers[l.name]!),
  loaded: scaled(figures.service.loaded, figures.service.loaded.attribution.layers[l.name]!)
}))
/** One row per key of an attribution map (`areas`, `nativeByCaller`), scaled, both servers and phases. */
const rowsOf = (map: "areas" | "nativeByCaller") =>
  [...new Set(names.flatMap((n) => kinds.flatMap((k) => Object.keys(figures[n][k].attribution[map]))))].map(
    (key) => {
      const of = (n: Name) =>
        Object.fromEntries(kinds.map((k) => [k, scaled(figures[n][k], figures[n][k].attribution[map][key] ?? 0)]))
      return { key, service: of("service"), minimal: of("minimal") }
    }
  ).sort((a, b) => b.service.loaded! + b.service.sequential! - a.service.loaded! - a.service.sequential!)
const areaRows = rowsOf("areas").map(({ key, ...r }) => ({ area: key, ...r }))
const nativeRows = rowsOf("nativeByCaller").map(({ key, ...r }) => ({ caller: key, ...r }))

/** One figure of every server and phase, as `{ service: { sequential, loaded }, minimal: … }`. */
const each = <A>(g: (f: PhaseFigures) => A) =>
  Object.fromEntries(names.map((n) => [n, Object.fromEntries(kinds.map((k) => [k, g(figures[n][k])]))]))

const result = {
  node: process.version,
  cores: Os.cpus().length,
  database: usePostgres ? "local PostgreSQL (private database)" : "embedded PostgreSQL (PGlite)",
  rounds: ROUNDS,
  sequentialPerRound: SEQUENTIAL,
  loadSeconds: LOAD_SECONDS,
  connections: CONNECTIONS,
  loadavg: { start: loadAtStart, end: loadAtEnd },
  cpu: each((f) => f.cpu),
  ownShare: { sequential: ownShare("sequential"), loaded: ownShare("loaded") },
  rps: each((f) => f.rps),
  phaseLoad: each((f) => f.load),
  refused: each((f) => f.refused),
  profileMsPerReq: each((f) => f.profileMsPerReq),
  anyService: Object.fromEntries(
    kinds.map((k) => [k, scaled(figures.service[k], figures.service[k].attribution.anyServiceUs)])
  ),
  layers: layerRows,
  areas: areaRows,
  nativeByCaller: nativeRows
}
writeFigures("framework", result)

const areaOfRun = (area: string, k: Kind, n: Name = "service") => areaRows.find((a) => a.area === area)?.[n][k] ?? 0
const nativeOf = (caller: string, k: Kind) => nativeRows.find((a) => a.caller === caller)?.service[k] ?? 0
const layerOf = (name: string, k: Kind) => layerRows.find((l) => l.layer === name)![k]
/** What the rate-limit decision's statement costs that the profile can see: its frames, pg and @effect/sql. */
const rateLimitSql = (k: Kind) =>
  layerOf("rate limit", k) + areaOfRun("pg", k) + areaOfRun("@effect/sql", k) + areaOfRun("@effect/sql-pg", k) +
  nativeOf("pg", k) + nativeOf("@effect/sql-pg", k)
const gcExtra = (k: Kind) => areaOfRun("garbage collection", k) - areaOfRun("garbage collection", k, "minimal")
const effectExtra = (k: Kind) =>
  areaOfRun("effect: other", k) + areaOfRun("effect: fiberRuntime", k) -
  areaOfRun("effect: other", k, "minimal") - areaOfRun("effect: fiberRuntime", k, "minimal")
const floorLoaded = figures.minimal.loaded.cpu.median
const pct = (a: number, b: number) => `${Math.round((a / b) * 100)} %`
const both = (g: (k: Kind) => number) =>
  `${g("sequential").toFixed(3)} ms one at a time, ${g("loaded").toFixed(3)} ms under load`
const biggestLayer = [...layerRows].sort((a, b) => b.sequential - a.sequential)[0]!

const NOTES = `## What the attribution can and cannot see

- **Inclusive time by file sees only a layer's synchronous work.** Effect runs each step of an
  effect from its fiber runtime's loop, so the continuation a layer schedules (its \`flatMap\`, a
  fork, the statement it hands to the pool) runs with the runtime, a package or the event loop at
  the bottom of the stack, not the layer. Frames of any service file were on the stack for ${
  result.anyService.sequential.toFixed(3)
} ms of ${figures.service.sequential.cpuPooled.toFixed(3)} ms one at a time (${
  pct(result.anyService.sequential, figures.service.sequential.cpuPooled)
}) and ${result.anyService.loaded.toFixed(3)} of ${
  figures.service.loaded.cpuPooled.toFixed(3)
} ms under load: a layer row is a lower
  bound of what the layer causes. The rest is in the self-time tables: the Effect runtime and
  library, GC, socket writes, pg.
- **Garbage collection belongs to no layer.** The service collects ${both(gcExtra)} more than the
  minimal server per request: it allocates more (request id, header record, access-log line,
  metric update, rate-limit statement and its result), and the profile cannot say whose.
- **The rate-limit decision** (one \`INSERT … ON CONFLICT\` per request when requests come one at a
  time; group-committed under load) is the one layer whose cost is visible outside its frames: its
  frames + pg + @effect/sql(-pg) + the socket writes pg makes add up to ${both(rateLimitSql)}
  (a lower bound: the Effect runtime steps that run the statement are in "effect" above).
- **CORS** costs nothing on this request: no Origin header (nor on most API calls), so it is one
  \`if\` in HttpMiddleware.js; Cors.js runs only for a preflight, answered by the request guard.
- **Tracing** is off without an OTLP endpoint (the benchmark's and most deployments' case): no span
  is made, Tracing.js never runs per request. Its cost with an exporter is not measured here.
- **Error mapping** (ApiErrors.js) runs only for a failed request; **Viewer** is not on the public
  pricing path. Both read 0 here by design of the request, not of the code.

## What to do next

No named layer costs more than 0.1 ms per request in its own frames (the largest, ${biggestLayer.layer}, ${
  biggestLayer.sequential.toFixed(3)
} ms
one at a time): the access log (${layerOf("access log", "sequential").toFixed(3)} / ${
  layerOf("access log", "loaded").toFixed(3)
} ms), metrics (${layerOf("metrics", "sequential").toFixed(3)} / ${
  layerOf("metrics", "loaded").toFixed(3)
} ms), CORS and tracing (0, see above) give more than they cost,
so nothing in src/platform/observability, AccessLog.ts or Cors.ts was changed. The service's own share,
${result.ownShare.sequential.median.toFixed(3)} ms one at a time and ${
  result.ownShare.loaded.median.toFixed(3)
} ms under load (medians of the rounds), goes to what no single
middleware owns: more Effect runtime work than the floor (${both(effectExtra)}), more
garbage (${both(gcExtra)}) and the rate-limit statement (≥ ${both(rateLimitSql)};
group-committed under load). Two changes of design are worth making, both outside the files this
work may touch (others work there): (1) RateLimit*.ts: decide an endpoint's limit in process (a
token bucket per key, reconciled with the shared PostgreSQL counter every few hundred ms or N hits),
so a request makes no statement: ≥ ${rateLimitSql("sequential").toFixed(3)} ms less one at a time (${
  pct(rateLimitSql("sequential"), result.ownShare.sequential.median)
} of the own share);
(2) RequestGuard.ts / HttpMiddleware.ts: fewer Effect steps per request (the guard forks one fiber per
request, which copies every FiberRef, to await its deadline; the middleware's bookkeeping runs as
effects around the app): the runtime and GC rows are where the share under load is. An allocation
profile (\`--heap-prof\`) of the path would say whose garbage it is.

**Is the floor the limit?** Not today: the service costs ${
  (figures.service.loaded.cpu.median / floorLoaded).toFixed(1)
}× its floor under load (${figures.service.loaded.cpu.median.toFixed(3)} vs ${
  floorLoaded.toFixed(3)
} ms). But it is for issue 18's target (pricing ≥ 0.75 × the minimal server's req/s): that leaves
the service ${
  (floorLoaded / 0.75 - floorLoaded).toFixed(3)
} ms of its own per request under load, a third of the floor, while the
extra Effect runtime work alone is ${effectExtra("loaded").toFixed(3)} ms. No tuning of the middleware reaches it;
the design that would: the per-request cross-cutting work (request id, response headers, access
log, metrics, the rate-limit decision from memory) done synchronously in one wrapper around the
Effect app at the node:http level, so the Effect part of a request is the minimal server's, or
the target restated against the measured floor.
`
writeResult("framework", markdown())
process.exit(0)

function markdown(): string {
  const ms = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(3))
  const spread = (s: { median: number; min: number; max: number }) => `${ms(s.median)} (${ms(s.min)}–${ms(s.max)})`
  const ld = (s: { min: number; max: number }) => `${s.min}–${s.max}`
  const f = figures
  const serverRow = (label: string, n: Name) =>
    `| ${label} | ${spread(f[n].sequential.cpu)} | ${spread(f[n].loaded.cpu)} | ${
      Math.round(f[n].loaded.rps.median).toLocaleString("en-US")
    } | ${ld(f[n].sequential.load)} / ${ld(f[n].loaded.load)} |`
  const fourCells = (label: string, r: { service: Record<string, number>; minimal: Record<string, number> }) =>
    `| ${label} | ${ms(r.service.sequential)} | ${ms(r.minimal.sequential)} | ${ms(r.service.loaded)} | ${
      ms(r.minimal.loaded)
    } |`
  const how = (files: ReadonlyArray<string>) => `inclusive, frames of ${files.map((x) => `\`${x}\``).join(", ")}`
  return `# The framework's share of GET /api/pricing/tld (issue 35 item 4)

Run: ${new Date().toISOString()} · Node ${process.version} · ${result.cores} cores · ${result.database} ·
1-minute load average ${loadAtStart.join(" / ")} (1/5/15 min) at the start, ${loadAtEnd.join(" / ")} at the end ·
compiled with esbuild · both servers started with \`--cpu-prof\` (the profiler's own cost is inside
every figure below) · ${ROUNDS} alternating rounds (service, minimal, service, minimal …) of: ${WARMUP}
warm-up requests then ${SEQUENTIAL.toLocaleString("en-US")} one at a time; a 1 s warm-up then ${LOAD_SECONDS} s at
${CONNECTIONS} connections (autocannon). The same request \`GET ${PATH}\` to both; the service as in
bench/pricing.ts (access log on, the endpoint's rate limit out of reach, so every request still
makes its rate-limit decision), without background workers. Refused or failed: service ${
    f.service.sequential.refused + f.service.loaded.refused
  }, minimal ${f.minimal.sequential.refused + f.minimal.loaded.refused}.

## CPU per request (/proc: user + system of the server process ÷ requests)

Median (min–max) over the rounds, ms; load average = 1-minute load at the end of each phase (one at a time / under load).

| server | one at a time | under load | req/s under load (median) | load average |
|---|---:|---:|---:|---|
${serverRow("the service", "service")}
${serverRow("minimal Effect HttpApi (framework floor)", "minimal")}
| **the service's own share** (service − minimal, per round) | ${spread(result.ownShare.sequential)} | ${
    spread(result.ownShare.loaded)
  } | | |

## By layer of the path (the service)

CPU ms/request = the layer's share of the profile's non-idle samples in the measured phases ×
the service's /proc CPU per request of those phases (pooled over the rounds). Layers overlap
(a guard frame calls a rate-limit frame: both count), so the rows do not add up.

| layer | CPU ms/request one at a time | under load | how measured |
|---|---:|---:|---|
${layerRows.map((r) => `| ${r.layer} | ${ms(r.sequential)} | ${ms(r.loaded)} | ${how(r.files)} |`).join("\n")}
| any service code (\`src/\`) on the stack | ${ms(result.anyService.sequential)} | ${
    ms(result.anyService.loaded)
  } | inclusive, any frame under \`.build/src/\` |
| the service, total | ${ms(f.service.sequential.cpuPooled)} | ${
    ms(f.service.loaded.cpuPooled)
  } | /proc, pooled over the rounds |
| minimal HttpApi server, total | ${ms(f.minimal.sequential.cpuPooled)} | ${
    ms(f.minimal.loaded.cpuPooled)
  } | /proc, pooled over the rounds |
| the service's own share | ${ms(f.service.sequential.cpuPooled - f.minimal.sequential.cpuPooled)} | ${
    ms(f.service.loaded.cpuPooled - f.minimal.loaded.cpuPooled)
  } | service − minimal, pooled |

## Self time by area, service beside the minimal server (CPU ms/request, scaled the same way)

| area | service, one at a time | minimal, one at a time | service, under load | minimal, under load |
|---|---:|---:|---:|---:|
${areaRows.filter((a) => a.area !== "(root)").map((a) => fourCells(a.area, a)).join("\n")}

Node internals and native code (the rows "native socket writes", "node:http", "node:net …",
"node: other", "(native)" above) by whose call it was: the first package or service folder up the stack.

| first JS caller | service, one at a time | minimal, one at a time | service, under load | minimal, under load |
|---|---:|---:|---:|---:|
${nativeRows.map((a) => fourCells(a.caller, a)).join("\n")}

Profile time (non-idle samples, wall time of the main thread) per request, ms: service ${
    ms(f.service.sequential.profileMsPerReq)
  } / ${ms(f.service.loaded.profileMsPerReq)}, minimal ${ms(f.minimal.sequential.profileMsPerReq)} / ${
    ms(f.minimal.loaded.profileMsPerReq)
  } (one at a time / under load). It differs from /proc CPU: a sample counts while the thread is
descheduled on a loaded machine, and /proc also counts the other threads (GC helpers, libuv, the
profiler's sampler), which the scaling spreads over the rows by share. The profiler's own cost is
inside every figure.

${NOTES}
`
}
