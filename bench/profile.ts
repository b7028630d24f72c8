/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and attributes the samples taken inside given time
 * windows (the benchmark's phases) to the layers of the request path and to areas of self time.
 *
 * The one contract: sample times are on the profiled process's monotonic clock (µs), which on
 * Linux is the same CLOCK_MONOTONIC as the parent's `process.hrtime` — so windows are taken with
 * `nowUs()` in the benchmark and compared as is (framework.ts checks the profile's start against
 * the spawn time).
 *
 * What it can see: a layer's **inclusive** time is every sample with a frame of its source files
 * anywhere on the stack. Effect's fiber runtime runs each step of an effect from its own loop
 * (`FiberRuntime.runLoop`), so a layer's frames are on the stack only while its own synchronous
 * code runs (building effects, reading headers, formatting a log line) plus whatever it calls
 * synchronously; the steps it schedules (its `flatMap` continuations run later by the runtime,
 * fiber forks, socket writes) show up under the runtime, not under the layer. Inclusive time is
 * therefore a lower bound of what a layer causes; the self-time areas show where the rest went.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

interface Frame {
  readonly functionName: string
  readonly url: string
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: Frame
  readonly children?: Array<number>
}
interface Profile {
  readonly nodes: Array<ProfileNode>
  readonly startTime: number
  readonly endTime: number
  readonly samples: Array<number>
  readonly timeDeltas: Array<number>
}

/** Now on the monotonic clock V8's profiler stamps samples with, in µs. */
export const nowUs = () => Number(process.hrtime.bigint() / 1000n)

export interface Window {
  readonly from: number
  readonly to: number
}

/** Layers of the service's request path, each by the compiled files (under .build/src/) of its source. */
export const LAYERS: ReadonlyArray<{ readonly name: string; readonly files: ReadonlyArray<string> }> = [
  { name: "request guard", files: ["platform/http/RequestGuard.js", "platform/outbound/Deadline.js"] },
  {
    name: "server middleware (request id, headers)",
    files: ["platform/http/HttpMiddleware.js", "platform/http/ResponseHeaders.js", "platform/Ids.js"]
  },
  { name: "access log", files: ["platform/http/AccessLog.js"] },
  { name: "metrics", files: ["platform/observability/Metrics.js"] },
  { name: "CORS", files: ["platform/http/Cors.js"] },
  { name: "tracing", files: ["platform/observability/Tracing.js", "platform/observability/TraceContext.js"] },
  {
    name: "error mapping",
    files: ["platform/http/ApiErrors.js", "platform/http/Errors.js", "platform/http/SchemaResponse.js"]
  },
  { name: "rate limit", files: ["platform/http/RateLimit.js", "platform/http/RateLimitEdge.js"] },
  {
    name: "route matching",
    files: ["platform/http/RouteTable.js", "platform/http/HttpPath.js", "platform/http/ClientIp.js"]
  },
  { name: "viewer (identity)", files: ["identity/Viewer.js"] },
  { name: "pricing handler + catalogue", files: ["catalogue/"] }
]

const BUILD_SRC = "/.build/src/"

/** The area a frame's self time belongs to (package, service folder, node internals, GC …). */
export const areaOf = (f: Frame): string => {
  const { functionName: fn, url } = f
  if (fn === "(garbage collector)") return "garbage collection"
  if (fn === "(idle)") return "(idle)"
  if (fn === "(program)") return "(program: native, outside JS)"
  if (fn === "(root)") return "(root)"
  const nm = url.lastIndexOf("node_modules/")
  if (nm !== -1) {
    const rest = url.slice(nm + 13).split("/")
    const pkg = rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!
    if (pkg === "effect") return url.endsWith("/fiberRuntime.js") ? "effect: fiberRuntime" : "effect: other"
    if (pkg === "pg" || pkg === "pg-protocol" || pkg === "pg-pool" || pkg.startsWith("pg-")) return "pg"
    return pkg
  }
  const src = url.indexOf(BUILD_SRC)
  if (src !== -1) return `service: src/${url.slice(src + BUILD_SRC.length).split("/")[0]}`
  if (url.startsWith("node:_http") || url === "node:http") return "node:http"
  if (url.startsWith("node:net") || url.startsWith("node:internal/stream_base")) return "node:net + stream writes"
  if (url.startsWith("node:")) return "node: other internals"
  if (url === "") {
    return fn === "writev" || fn === "writeUtf8String" || fn === "writeBuffer"
      ? "native socket writes"
      : "(native)"
  }
  return "other"
}

export interface Attribution {
  /** Non-idle sample time inside the windows, µs. */
  readonly busyUs: number
  /** Inclusive µs per layer (LAYERS order). */
  readonly layers: Record<string, number>
  /** Any frame of the service's own code (src/) on the stack, µs. */
  readonly anyServiceUs: number
  /** Self µs per area. */
  readonly areas: Record<string, number>
  /**
   * Self µs of node internals and native code (socket writes, http parsing), charged to the first
   * package or service folder up the stack: whose I/O it was.
   */
  readonly nativeByCaller: Record<string, number>
}

/** Attributes the samples of `file` that fall inside `windows`. */
export const attribute = (file: string, windows: ReadonlyArray<Window>): Attribution => {
  const profile = JSON.parse(Fs.readFileSync(file, "utf8")) as Profile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const layerOf = (url: string): string | undefined => {
    const i = url.indexOf(BUILD_SRC)
    if (i === -1) return undefined
    const rel = url.slice(i + BUILD_SRC.length)
    return LAYERS.find((l) => l.files.some((f) => rel.startsWith(f)))?.name
  }
  // Per leaf node: the layers on its stack and whether any service frame is (computed once per node).
  const stackInfo = new Map<number, { layers: Set<string>; service: boolean; caller: string }>()
  const isNative = (area: string) => area.startsWith("node") || area.startsWith("native") || area === "(native)"
  const infoOf = (id: number) => {
    let info = stackInfo.get(id)
    if (info) return info
    info = { layers: new Set(), service: false, caller: "" }
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame
      const url = frame.url
      if (info.caller === "") {
        const area = areaOf(frame)
        if (!isNative(area)) info.caller = area
      }
      if (url.includes(BUILD_SRC)) info.service = true
      const layer = layerOf(url)
      if (layer) info.layers.add(layer)
    }
    stackInfo.set(id, info)
    return info
  }
  const layers: Record<string, number> = Object.fromEntries(LAYERS.map((l) => [l.name, 0]))
  const areas: Record<string, number> = {}
  const nativeByCaller: Record<string, number> = {}
  let busyUs = 0
  let anyServiceUs = 0
  let t = profile.startTime
  const sorted = [...windows].sort((a, b) => a.from - b.from)
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0
    t += delta
    if (!sorted.some((w) => t >= w.from && t < w.to)) continue
    // A sample's time is the interval since the previous one (what `--cpu-prof` tables show too).
    const node = byId.get(profile.samples[i]!)!
    const area = areaOf(node.callFrame)
    if (area === "(idle)") continue
    busyUs += delta
    areas[area] = (areas[area] ?? 0) + delta
    const info = infoOf(node.id)
    if (info.service) anyServiceUs += delta
    if (isNative(area)) {
      const caller = info.caller === "(root)" || info.caller === "" ? "(event loop: no JS caller)" : info.caller
      nativeByCaller[caller] = (nativeByCaller[caller] ?? 0) + delta
    }
    for (const l of info.layers) layers[l] = layers[l]! + delta
  }
  return { busyUs, layers, anyServiceUs, areas, nativeByCaller }
}

/**
 * The one `.cpuprofile` in `dir`, checked to be on our clock: it must have started after `spawnedUs`
 * (taken with `nowUs()` before the process was spawned) and within its start-up.
 */
export const findProfile = (dir: string, spawnedUs: number): string => {
  const file = Fs.readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))
  if (file === undefined) throw new Error(`no .cpuprofile in ${dir}`)
  const full = Path.join(dir, file)
  const lag = ((JSON.parse(Fs.readFileSync(full, "utf8")) as Profile).startTime - spawnedUs) / 1e6
  if (lag < 0 || lag > 30) throw new Error(`${full}: the profile's clock is not ours (${lag.toFixed(1)} s)`)
  return full
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Median and spread of one figure over the rounds. */
export const stats = (xs: ReadonlyArray<number>) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) })
