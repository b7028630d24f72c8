/**
 * Benchmark helpers: bundle a TypeScript entry with esbuild (benchmarks run compiled code, not
 * tsx), start it as a child process on a loopback port, and drive it with autocannon.
 */
import autocannon from "autocannon"
import { build } from "esbuild"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import pg from "pg"

export const root = Path.resolve(import.meta.dirname, "..")
export const outDir = Path.join(root, "bench", ".build")

/** Every file under `dir` (recursively) whose name matches. */
const walk = (dir: string, match: (name: string) => boolean): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = Path.join(dir, e.name)
    return e.isDirectory() ? walk(full, match) : match(e.name) ? [full] : []
  })

let compiled = false

/**
 * Compiles src/, migrations/ and bench/servers/ to JavaScript under bench/.build (same tree, one
 * file per module, data files copied beside them), so benchmarks run plain `node` on compiled
 * code. Returns the path of the compiled `entry` (e.g. "src/main.ts").
 */
export const compile = async (entry: string): Promise<string> => {
  if (!compiled) {
    Fs.rmSync(outDir, { recursive: true, force: true })
    const sources = ["src", "migrations", "bench/servers"].flatMap((d) =>
      walk(Path.join(root, d), (n) => n.endsWith(".ts") && !n.endsWith(".d.ts"))
    )
    await build({
      entryPoints: sources,
      outdir: outDir,
      outbase: root,
      bundle: false,
      platform: "node",
      format: "esm",
      target: "node20",
      sourcemap: false,
      logLevel: "error"
    })
    for (const file of walk(Path.join(root, "src"), (n) => !/\.(ts|md)$/.test(n))) {
      const target = Path.join(outDir, Path.relative(root, file))
      Fs.mkdirSync(Path.dirname(target), { recursive: true })
      Fs.copyFileSync(file, target)
    }
    compiled = true
  }
  return Path.join(outDir, entry.replace(/\.ts$/, ".js"))
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = Net.createServer()
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as Net.AddressInfo
      srv.close(() => resolve(port))
    })
  })

export interface Running {
  readonly url: string
  readonly child: ChildProcess
  stop(): Promise<void>
}

/**
 * Starts `node file` with env; resolves once `readyPath` answers 200 (or "ready" is printed).
 * `BENCH_NODE_ARGS` adds node flags to the service only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
 */
export const start = async (
  file: string,
  env: Record<string, string>,
  readyPath = "/api/pricing/tld?tld=com",
  extraNodeArgs: ReadonlyArray<string> = []
): Promise<Running> => {
  const port = await freePort()
  Fs.mkdirSync(outDir, { recursive: true })
  const nodeArgs = [...(process.env.BENCH_NODE_ARGS ?? "").split(" ").filter((a) => a !== ""), ...extraNodeArgs]
  const child = spawn(process.execPath, [...nodeArgs, file], {
    cwd: outDir,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"]
  })
  // A benchmark that throws must not leave its service running (and loading the next one).
  process.once("exit", () => child.exitCode === null && child.kill("SIGKILL"))
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${file} exited with ${child.exitCode}`)
    const ok = await fetch(url + readyPath).then((r) => r.status === 200, () => false)
    if (ok) break
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
        setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
      })
  }
}

export interface LoadResult {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
}

export const load = async (
  url: string,
  options: { connections?: number; duration?: number; warmup?: number } = {}
): Promise<LoadResult> => {
  const connections = options.connections ?? 50
  await autocannon({ url, connections, duration: options.warmup ?? 3 })
  const r = await autocannon({ url, connections, duration: options.duration ?? 10 })
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx
  }
}

export const writeResult = (name: string, markdown: string) => {
  const dir = Path.join(root, "bench", "results")
  Fs.mkdirSync(dir, { recursive: true })
  Fs.writeFileSync(Path.join(dir, `${name}.md`), markdown)
  console.log(markdown)
}

/** The PostgreSQL server benchmarks use: DATABASE_URL, else the local one on 127.0.0.1:5432. */
export const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** Whether something listens on 127.0.0.1:5432 (an HTTP probe that only a refused connection fails). */
export const postgresReachable = () =>
  fetch("http://127.0.0.1:5432").then(() => true, (e) => String(e.cause?.code) !== "ECONNREFUSED")

/** A fresh database `name` on `adminUrl` (dropped first if left over); `drop()` removes it. */
export const privateDatabase = async (name: string) => {
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await admin(`drop database if exists ${name} with (force)`)
  await admin(`create database ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) }
}

/** Configuration every benchmarked service process starts with (each benchmark adds its own). */
export const serviceEnv = {
  NODE_ENV: "production",
  // A test deployment: production refuses the sandbox payment and payout providers otherwise.
  TEST_MODE: "true",
  // Random per run: production refuses a placeholder-looking secret.
  SERVICE_SECRET: randomBytes(32).toString("hex"),
  METRICS_TOKEN: randomBytes(24).toString("hex"),
  HOST: "127.0.0.1",
  LOG_LEVEL: "warn"
} as const

/**
 * A TCP proxy in front of PostgreSQL that counts the client's protocol messages: every `Sync`
 * (extended protocol, one per statement as `pg` sends them) and every simple `Query` is one round
 * trip. Load-independent: `roundTrips()` before and after N requests gives round trips per request.
 */
export const countingPgProxy = async (target: string) => {
  const t = new URL(target)
  let roundTrips = 0
  const sockets = new Set<Net.Socket>()
  const server = Net.createServer((client) => {
    const upstream = Net.connect(Number(t.port || 5432), t.hostname)
    sockets.add(client)
    sockets.add(upstream)
    let started = false
    let buf = Buffer.alloc(0)
    client.on("data", (chunk) => {
      upstream.write(chunk)
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk])
      for (;;) {
        if (!started) {
          if (buf.length < 8) break
          const len = buf.readInt32BE(0)
          if (buf.length < len) break
          const code = buf.readInt32BE(4)
          // SSLRequest / GSSENCRequest are answered with one byte, then the startup message follows.
          if (code !== 80877103 && code !== 80877104) started = true
          buf = buf.subarray(len)
          continue
        }
        if (buf.length < 5) break
        const len = buf.readInt32BE(1)
        if (buf.length < len + 1) break
        const type = buf[0]
        if (type === 0x53 /* S */ || type === 0x51 /* Q */) roundTrips++
        buf = buf.subarray(len + 1)
      }
    })
    upstream.on("data", (chunk) => client.write(chunk))
    const close = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on("close", close).on("error", close)
    upstream.on("close", close).on("error", close)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = new URL(target)
  url.hostname = "127.0.0.1"
  url.port = String((server.address() as Net.AddressInfo).port)
  return {
    url: url.toString(),
    roundTrips: () => roundTrips,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}

/** Commits and rollbacks of one database so far (pg_stat_database; flushed by the stats collector). */
export const transactionsOf = async (databaseUrl: string) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query("select pg_stat_clear_snapshot()")
    const r = await client.query<{ c: string }>(
      "select xact_commit + xact_rollback as c from pg_stat_database where datname = current_database()"
    )
    return Number(r.rows[0]!.c)
  } finally {
    await client.end()
  }
}

/** CPU time (user + system) a process has used, in ms (Linux /proc; 10 ms ticks). */
export const processCpuMs = (pid: number | undefined) => {
  try {
    const fields = Fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return NaN
  }
}

/** Resident set size of a process in MB (Linux /proc). */
export const processRssMb = (pid: number | undefined) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))
    return m ? Math.round(Number(m[1]) / 1024) : NaN
  } catch {
    return NaN
  }
}

/**
 * The live JavaScript heap of a service started with `--inspect=127.0.0.1:<inspectPort>`, in MB,
 * after a full garbage collection: what it really holds, unlike RSS, which V8 and the allocator
 * do not hand back at once. Speaks the DevTools protocol (`HeapProfiler.collectGarbage`,
 * `Runtime.getHeapUsage`) over the inspector's WebSocket (global on Node 22+; run.ts passes
 * `--experimental-websocket` on Node 20).
 */
export const liveHeapMb = async (inspectPort: number): Promise<number> => {
  const [target] = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json() as Array<
    { webSocketDebuggerUrl: string }
  >
  const socket = new WebSocket(target!.webSocketDebuggerUrl)
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true })
    socket.addEventListener("error", reject, { once: true })
  })
  let nextId = 0
  const call = (method: string) =>
    new Promise<any>((resolve) => {
      const id = ++nextId
      const onMessage = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data))
        if (message.id !== id) return
        socket.removeEventListener("message", onMessage)
        resolve(message.result)
      }
      socket.addEventListener("message", onMessage)
      socket.send(JSON.stringify({ id, method }))
    })
  try {
    await call("HeapProfiler.enable")
    await call("HeapProfiler.collectGarbage")
    await call("HeapProfiler.collectGarbage")
    const usage = await call("Runtime.getHeapUsage") as { usedSize: number }
    return Math.round(usage.usedSize / 1024 / 1024)
  } finally {
    socket.close()
  }
}

/** Machine-readable figures of one benchmark, for bench/results/REPORT.md (written by run.ts). */
export const writeFigures = (name: string, figures: Record<string, unknown>) => {
  const dir = Path.join(root, "bench", "results")
  Fs.mkdirSync(dir, { recursive: true })
  Fs.writeFileSync(
    Path.join(dir, `${name}.json`),
    JSON.stringify({ at: new Date().toISOString(), ...figures }, null, 2) + "\n"
  )
}

/**
 * A partner with a sandbox credential (scopes search, buy) created through the CLI, and `listings`
 * sandbox listings bench0.com … bench<listings>.com at 1000 cents, on `databaseUrl`.
 */
export const seedPartner = async (cliFile: string, env: Record<string, string>, listings: number) => {
  const { execFileSync } = await import("node:child_process")
  const created = JSON.parse(
    execFileSync(process.execPath, [
      cliFile,
      "partner",
      "create",
      "--name",
      "Bench",
      "--env",
      "sandbox",
      "--scopes",
      "search,buy",
      "--json"
    ], {
      cwd: Path.dirname(cliFile),
      env: { ...process.env, ...env }
    }).toString()
  )
  const db = new pg.Client({ connectionString: env.DATABASE_URL })
  await db.connect()
  await db.query(
    `insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents)
    select 'lst_b' || g, 'sandbox', 'bench' || g || '.com', 'bench' || g || '.com', 'com', 'bench' || g, 1000, 500
    from generate_series(0, ${listings}) g`
  )
  await db.end()
  return { keyId: created.key_id as string, secret: created.secret as string }
}

/**
 * autocannon request lists of the three Partner-benchmark requests: the unsigned pricing read,
 * signed availability, signed orders (each a new domain of `listings`, starting at `first`, and a
 * new Idempotency-Key).
 */
export const partnerRequests = (
  sign: (
    cred: { keyId: string; secret: string },
    req: { method: string; url: string; body?: string }
  ) => Record<string, string>,
  cred: { keyId: string; secret: string },
  listings: number,
  first = 2
) => {
  let next = first
  const pricingPath = "/api/pricing/tld?tld=com&op=register"
  const availabilityPath = "/api/partner/v1/availability?domain=bench1.com"
  return {
    pricing: [{ method: "GET", path: pricingPath, headers: { "x-forwarded-proto": "https" } }],
    availability: [{
      method: "GET",
      path: availabilityPath,
      setupRequest: (req: any) => ({
        ...req,
        headers: { "x-forwarded-proto": "https", ...sign(cred, { method: "GET", url: availabilityPath }) }
      })
    }],
    orders: [{
      method: "POST",
      path: "/api/partner/v1/orders",
      setupRequest: (req: any) => {
        const domain = `bench${next++ % listings}.com`
        const body = JSON.stringify({
          domain,
          expected_price: 1000,
          currency: "USD",
          external_payment_ref: `p-${domain}`,
          buyer: { email: "b@example.org" }
        })
        return {
          ...req,
          body,
          headers: {
            "content-type": "application/json",
            "x-forwarded-proto": "https",
            "idempotency-key": crypto.randomUUID(),
            ...sign(cred, { method: "POST", url: "/api/partner/v1/orders", body })
          }
        }
      }
    }]
  } as Record<"pricing" | "availability" | "orders", Array<any>>
}

/**
 * Where the CPU went in a V8 `.cpuprofile` (written by `node --cpu-prof`): self time by area
 * (the service's own code by folder, each package, node internals, GC) and the top functions.
 */
export const summariseProfile = (file: string) => {
  const profile = JSON.parse(Fs.readFileSync(file, "utf8")) as {
    nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>
    samples: Array<number>
    timeDeltas: Array<number>
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const areaOf = (url: string, fn: string) => {
    if (fn === "(garbage collector)") return "garbage collection"
    if (fn === "(idle)") return "(idle)"
    if (fn === "(program)") return "(program: native, outside JS)"
    const nm = url.lastIndexOf("node_modules/")
    if (nm !== -1) {
      const rest = url.slice(nm + 13).split("/")
      return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!
    }
    const src = url.indexOf("/.build/src/")
    if (src !== -1) return `service: src/${url.slice(src + 12).split("/")[0]}`
    if (url.startsWith("node:")) return "node internals"
    return url === "" ? "(native)" : "other"
  }
  const areas = new Map<string, number>()
  const fns = new Map<string, number>()
  let total = 0
  for (const [id, us] of self) {
    const n = byId.get(id)!
    const area = areaOf(n.callFrame.url, n.callFrame.functionName)
    if (area === "(idle)") continue
    total += us
    areas.set(area, (areas.get(area) ?? 0) + us)
    const name = `${n.callFrame.functionName || "(anonymous)"} ${
      n.callFrame.url.replace(/^.*node_modules\//, "").replace(/^.*\/\.build\//, "")
    }:${n.callFrame.lineNumber + 1}`
    fns.set(name, (fns.get(name) ?? 0) + us)
  }
  const top = (m: Map<string, number>, k: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, us]) => ({ name, share: us / total }))
  return { busyMs: Math.round(total / 1000), areas: top(areas, 12), functions: top(fns, 15) }
}

export const profileMarkdown = (p: ReturnType<typeof summariseProfile>) =>
  `CPU busy ${p.busyMs.toLocaleString("en-US")} ms (idle excluded), self time:

| area | share |
|---|---:|
${p.areas.map((a) => `| ${a.name} | ${(a.share * 100).toFixed(1)} % |`).join("\n")}

| function (self time) | share |
|---|---:|
${p.functions.map((f) => `| \`${f.name}\` | ${(f.share * 100).toFixed(1)} % |`).join("\n")}
`

/**
 * The floor of the orders figure: single-row insert commits per second that PostgreSQL manages
 * with 20 clients (pgbench, a fresh table on `databaseUrl`), when pgbench is installed.
 */
export const pgbenchInsertCommits = async (databaseUrl: string, seconds = 5): Promise<number | undefined> => {
  const { spawnSync } = await import("node:child_process")
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  await client.query("create table if not exists bench_floor (id bigserial primary key, v text not null)")
  await client.end()
  const script = Path.join(outDir, "pgbench-insert.sql")
  Fs.mkdirSync(outDir, { recursive: true })
  Fs.writeFileSync(script, "insert into bench_floor (v) values ('x');\n")
  const r = spawnSync("pgbench", ["-n", "-c", "20", "-j", "2", "-T", String(seconds), "-f", script, databaseUrl], {
    encoding: "utf8"
  })
  const m = /tps = ([\d.]+)/.exec(r.stdout ?? "")
  return m ? Math.round(Number(m[1])) : undefined
}
