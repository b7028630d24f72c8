/**
 * Benchmark helpers: bundle a TypeScript entry with esbuild (benchmarks run compiled code, not
 * tsx), start it as a child process on a loopback port, and drive it with autocannon.
 */
import autocannon from "autocannon"
import { build } from "esbuild"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"

export const root = Path.resolve(import.meta.dirname, "..")
export const outDir = Path.join(root, "bench", ".build")

export const bundle = async (entry: string, name: string): Promise<string> => {
  Fs.mkdirSync(outDir, { recursive: true })
  const outfile = Path.join(outDir, `${name}.mjs`)
  await build({
    entryPoints: [Path.join(root, entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: false,
    logLevel: "error"
  })
  // Data files are read relative to the module; the bundle lives here, so they come along.
  for (const f of ["tld-snapshot.json", "default-prices.csv"]) {
    Fs.copyFileSync(Path.join(root, "src/catalogue/data", f), Path.join(outDir, f))
  }
  return outfile
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

/** Starts `node file` with env; resolves once `readyPath` answers 200 (or "ready" is printed). */
export const start = async (file: string, env: Record<string, string>, readyPath = "/api/pricing/tld?tld=com"): Promise<Running> => {
  const port = await freePort()
  // The tsx loader is only needed for the migrations (TypeScript files loaded at start-up).
  const child = spawn(process.execPath, ["--import", "tsx", file], {
    cwd: outDir,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"]
  })
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

export const load = async (url: string, options: { connections?: number; duration?: number; warmup?: number } = {}): Promise<LoadResult> => {
  const connections = options.connections ?? 50
  await autocannon({ url, connections, duration: options.warmup ?? 3 })
  const r = await autocannon({ url, connections, duration: options.duration ?? 10 })
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx }
}

export const writeResult = (name: string, markdown: string) => {
  const dir = Path.join(root, "bench", "results")
  Fs.mkdirSync(dir, { recursive: true })
  Fs.writeFileSync(Path.join(dir, `${name}.md`), markdown)
  console.log(markdown)
}
