/**
 * Start-up (issue 35 item 6, issue 36 item 8): several rounds of
 *
 * - the service from process start to `/readyz` 200 on the embedded database (no DATABASE_URL),
 *   warm: the DATA_DIR already holds the migrated database (a first, unmeasured start made it),
 *   both as `node dist/main.js` (the production build) and as `npm start` (scripts/built.mjs: the
 *   same build, kept under .build/; a baseline checkout from before it ran the sources through tsx);
 * - the CLI's `--help` (`node dist/cli.js` and `npm run -s cli`);
 * - a CLI read on PostgreSQL (`ledger verify --json`, on a private database, migrated beforehand).
 *
 * Each figure is the median of the rounds with its spread (min–max) and the 1-minute load
 * average at the start of each measurement beside it: other work runs on these machines.
 * `BENCH_STARTUP_BASELINE=<dir>` (an older checkout, built, with its node_modules) is measured in
 * the same rounds, alternating with this one, for before/after figures that saw the same load.
 *
 *   npm run build && npm run bench -- startup     (BENCH_STARTUP_ROUNDS, default 5)
 */
import { spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort, postgresReachable, privateDatabase, root, writeFigures, writeResult } from "./lib.js"

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 5)
const baseline = process.env.BENCH_STARTUP_BASELINE
const trees = [
  { name: "this tree", dir: root },
  ...(baseline ? [{ name: "baseline", dir: Path.resolve(baseline) }] : [])
]
for (const t of trees) {
  if (!Fs.existsSync(Path.join(t.dir, "dist", "main.js"))) {
    throw new Error(`${t.dir}: no dist/main.js; run npm run build`)
  }
}

const load1 = () => Number(Os.loadavg()[0].toFixed(2))
const npm = process.platform === "win32" ? "npm.cmd" : "npm"

interface Sample {
  readonly ms: number
  readonly load: number
}

/** Process start to `/readyz` 200; the process is stopped (SIGTERM to its group) afterwards. */
const toReady = async (dir: string, command: ReadonlyArray<string>, env: Record<string, string>): Promise<Sample> => {
  const port = await freePort()
  const load = load1()
  const started = performance.now()
  const child = spawn(command[0]!, command.slice(1), {
    cwd: dir,
    env: { ...withoutDatabase, ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true // npm start → node: stop the whole group
  })
  let ms: number
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited with ${child.exitCode}`)
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false)
      if (ok) {
        ms = performance.now() - started
        break
      }
      await new Promise((r) => setTimeout(r, 10))
    }
  } finally {
    const exited = new Promise((r) => child.once("exit", r))
    process.kill(-child.pid!, "SIGTERM")
    await exited
  }
  return { ms, load }
}

/** A command's wall time, start to exit; it must exit 0. */
const timed = (dir: string, command: ReadonlyArray<string>, env: Record<string, string> = {}): Sample => {
  const load = load1()
  const started = performance.now()
  const r = spawnSync(command[0]!, command.slice(1), { cwd: dir, env: { ...process.env, ...env }, encoding: "utf8" })
  const ms = performance.now() - started
  if (r.status !== 0) throw new Error(`${command.join(" ")} exited with ${r.status}: ${r.stderr}`)
  return { ms, load }
}

const embeddedEnv = (dataDir: string) => ({ DATA_DIR: dataDir, LOG_LEVEL: "warn" })

/** The environment of this process without DATABASE_URL: the service measures the embedded database. */
const { DATABASE_URL: _unused, ...withoutDatabase } = process.env

const measures = [
  "service `node dist/main.js` → /readyz (embedded, warm)",
  "service `npm start` → /readyz (embedded, warm)",
  "CLI `node dist/cli.js --help`",
  "CLI `npm run -s cli -- --help`",
  "CLI `node dist/cli.js ledger verify --json` (PostgreSQL)"
] as const
type Measure = typeof measures[number]

const samples = new Map<string, Array<Sample>>()
const add = (tree: string, measure: Measure, s: Sample) => {
  const key = `${tree}\u0000${measure}`
  samples.set(key, [...(samples.get(key) ?? []), s])
  console.log(`${tree.padEnd(10)} ${measure}: ${s.ms.toFixed(0)} ms (load ${s.load})`)
}

const hasPostgres = await postgresReachable()
const database = hasPostgres ? await privateDatabase(`bench_startup_${randomBytes(4).toString("hex")}`) : undefined
const dataDirs = new Map(trees.map((t) => [t.name, Fs.mkdtempSync(Path.join(Os.tmpdir(), "bench-startup-"))]))
try {
  // Warm: the first start of each tree initialises and migrates its DATA_DIR; the CLI migrates
  // the PostgreSQL database. None of it is measured.
  for (const t of trees) {
    const env = embeddedEnv(dataDirs.get(t.name)!)
    await toReady(t.dir, [process.execPath, "dist/main.js"], env)
    if (database) timed(t.dir, [process.execPath, "dist/cli.js", "migrate"], { DATABASE_URL: database.url })
  }
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which tree goes first, so that neither always meets a machine the other warmed.
    const order = round % 2 === 0 ? trees : [...trees].reverse()
    for (const t of order) {
      const env = embeddedEnv(dataDirs.get(t.name)!)
      add(t.name, measures[0], await toReady(t.dir, [process.execPath, "dist/main.js"], env))
      add(t.name, measures[1], await toReady(t.dir, [npm, "start"], env))
      add(t.name, measures[2], timed(t.dir, [process.execPath, "dist/cli.js", "--help"]))
      add(t.name, measures[3], timed(t.dir, [npm, "run", "-s", "cli", "--", "--help"]))
      if (database) {
        add(
          t.name,
          measures[4],
          timed(t.dir, [process.execPath, "dist/cli.js", "ledger", "verify", "--json"], { DATABASE_URL: database.url })
        )
      }
    }
  }
} finally {
  for (const dir of dataDirs.values()) Fs.rmSync(dir, { recursive: true, force: true })
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
const summary = (tree: string, measure: Measure) => {
  const xs = samples.get(`${tree}\u0000${measure}`)
  if (xs === undefined) return undefined
  const ms = xs.map((x) => x.ms)
  const loads = xs.map((x) => x.load)
  return {
    medianMs: Math.round(median(ms)),
    minMs: Math.round(Math.min(...ms)),
    maxMs: Math.round(Math.max(...ms)),
    load: { min: Math.min(...loads), max: Math.max(...loads) }
  }
}
const cell = (s: ReturnType<typeof summary>) =>
  s === undefined
    ? "not run"
    : `${(s.medianMs / 1000).toFixed(2)} s (${(s.minMs / 1000).toFixed(2)}–${
      (s.maxMs / 1000).toFixed(2)
    }), load ${s.load.min}–${s.load.max}`

const figures = Object.fromEntries(
  trees.map((t) => [t.name, Object.fromEntries(measures.map((m) => [m, summary(t.name, m)]))])
)
writeFigures("startup", { rounds: ROUNDS, cores: Os.cpus().length, baseline: baseline ?? null, figures })
writeResult(
  "startup",
  `# Start-up (issue 35 item 6, issue 36 item 8)

${
    new Date().toISOString().slice(0, 16).replace("T", " ")
  } UTC, ${ROUNDS} rounds, ${Os.cpus().length} cores, Node ${process.version}.
Each cell: median (min–max) over the rounds, and the 1-minute load average seen at the start of
each measurement (min–max). Embedded = PGlite over pglite-socket, DATA_DIR already migrated.
${baseline ? `The baseline (${baseline}) ran in the same rounds, alternating with this tree.\n` : ""}
| measure | target | ${trees.map((t) => t.name).join(" | ")} |
|---|---|${trees.map(() => "---").join("|")}|
${
    measures.map((m, i) =>
      `| ${m} | ${["≤ 2 s", "≤ 2 s", "≤ 0.5 s", "≤ 0.5 s", "≤ 1 s"][i]} | ${
        trees.map((t) => cell(summary(t.name, m))).join(" | ")
      } |`
    ).join("\n")
  }
${hasPostgres ? "" : "\nNo PostgreSQL on 127.0.0.1:5432: the CLI read was not measured.\n"}`
)
