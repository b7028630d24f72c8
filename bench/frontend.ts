/**
 * The storefront's front-end budget (issue 33), measured in headless Chromium against the
 * production build (`scripts/build.mjs`, `node dist/main.js`) on 127.0.0.1, with a loopback RDAP
 * stand-in answering every name "not registered" after 50 ms:
 *
 * - JavaScript on `/`, gzipped (every script the page loads or holds), against the budget of 30 KB;
 * - first contentful paint of `/` (localhost, so this is the server's and the browser's own time);
 * - from the search stream delivering the queried name's row to the page (the chunk reaching the
 *   page's script) to that row being in the DOM, and to the next animation frame (when it is painted);
 * - cumulative layout shift of a session: load, type a name as a person does, all rows answered.
 *
 *   npm run bench -- frontend      (local PostgreSQL when reachable, else the embedded database)
 *
 * Figures depend on the machine's load: the load average is written beside them.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Worker } from "node:worker_threads"
import { gzipSync } from "node:zlib"
import { chromium } from "playwright-core"
import { CHROMIUM, CHROMIUM_OPTIONS } from "../test/support/Browser.js"
import { postgresReachable, privateDatabase, root, serviceEnv, start, writeFigures, writeResult } from "./lib.js"

const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const BUDGET_GZIP_BYTES = 30 * 1024
const TLDS = ["com", "net", "org", "io"]

if (!Fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is absent (apt-get install -y chromium)`)

const rdap = new Worker(new URL("./servers/rdap-worker.mjs", import.meta.url), {
  workerData: { delayMs: 50, tlds: TLDS }
})
const rdapBase = await new Promise<string>((resolve) => rdap.once("message", (m: { base: string }) => resolve(m.base)))

const usePostgres = await postgresReachable()
const database = usePostgres ? await privateDatabase("bench_frontend") : undefined
const dist = Path.join(root, "bench/.build/frontend-dist")
execFileSync(process.execPath, [Path.join(root, "scripts/build.mjs"), "--out", dist], { stdio: "ignore" })
const service = await start(Path.join(dist, "main.js"), {
  ...serviceEnv,
  // Production refuses the sandbox payment providers and the embedded database; nothing the
  // front end measures depends on them.
  NODE_ENV: "development",
  WORKERS: "false",
  RDAP_BOOTSTRAP_URL: `${rdapBase}/dns.json`,
  ALTERNATE_TLDS: "net,org,io",
  RATE_LIMITS: JSON.stringify({ domain_search: 1_000_000 }),
  AVAILABILITY_TTL_AVAILABLE: "0 millis",
  DEMO_LISTINGS: "false",
  ...(database ? { DATABASE_URL: database.url } : { DATA_DIR: Path.join(root, "bench/.build/data-frontend") })
})
const loadBefore = Os.loadavg()

// --- JavaScript bytes of `/` ------------------------------------------------------------------------
const home = await (await fetch(`${service.url}/`)).text()
const inline = [...home.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? "").join("")
const sources = [...home.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!)
const files = await Promise.all(sources.map(async (src) => {
  const res = await fetch(new URL(src, service.url))
  return { src, cache: res.headers.get("cache-control"), bytes: Buffer.from(await res.arrayBuffer()) }
}))
const jsRaw = Buffer.byteLength(inline) + files.reduce((n, f) => n + f.bytes.length, 0)
const jsGzip = (inline === "" ? 0 : gzipSync(inline).length) + files.reduce((n, f) => n + gzipSync(f.bytes).length, 0)

// --- in Chromium ----------------------------------------------------------------------------------
/** Timestamps of the page: the first row's chunk reaching the page, the row in the DOM, the next frame; layout shifts. */
const INSTRUMENT = `
  window.__cls = 0
  new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.__cls += e.value })
    .observe({ type: "layout-shift", buffered: true })
  const fetch0 = window.fetch
  window.fetch = async (...args) => {
    const res = await fetch0(...args)
    if (!String(args[0]).includes("/search/stream") || res.body === null) return res
    const text = new TextDecoder()
    const spy = new TransformStream({ transform(chunk, out) {
      if (window.__deliveredAt === undefined && text.decode(chunk, { stream: true }).includes('"kind":"row"')) window.__deliveredAt = performance.now()
      out.enqueue(chunk)
    } })
    return new Response(res.body.pipeThrough(spy), { status: res.status, statusText: res.statusText, headers: res.headers })
  }
  new MutationObserver(() => {
    if (window.__shownAt === undefined && document.querySelector("#results li[data-domain]")) {
      window.__shownAt = performance.now()
      requestAnimationFrame(() => { window.__frameAt = performance.now() })
    }
  }).observe(document, { subtree: true, childList: true })
`

const browser = await chromium.launch(CHROMIUM_OPTIONS)
interface Run {
  fcp: number
  shown: number
  frame: number
  cls: number
}
const runs: Array<Run> = []
for (let i = 0; i < RUNS + 2; i++) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
  const page = await context.newPage()
  await page.addInitScript(INSTRUMENT)
  await page.goto(`${service.url}/`)
  await page.waitForFunction(() => performance.getEntriesByName("first-contentful-paint").length > 0)
  const name = `frontend${Date.now().toString(36)}${i}`
  await page.keyboard.type(`${name}.com`, { delay: 60 })
  await page.waitForSelector(`#results li[data-domain="${name}.com"]`)
  await page.waitForFunction(() => document.querySelectorAll("#results li[data-pending]").length === 0)
  await page.waitForTimeout(300)
  const t = await page.evaluate(() => {
    const w = window as unknown as Record<string, number>
    return {
      fcp: performance.getEntriesByName("first-contentful-paint")[0]!.startTime,
      delivered: w.__deliveredAt!,
      shown: w.__shownAt!,
      frame: w.__frameAt!,
      cls: w.__cls!
    }
  })
  await context.close()
  // The first two are the warm-up (the service's first page renders, Chromium's caches).
  if (i >= 2) runs.push({ fcp: t.fcp, shown: t.shown - t.delivered, frame: t.frame - t.delivered, cls: t.cls })
}
await browser.close()
const loadAfter = Os.loadavg()
await service.stop()
await rdap.terminate()
await database?.drop()

const sorted = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)
const median = (xs: ReadonlyArray<number>) => sorted(xs)[Math.floor(xs.length / 2)]!
const p90 = (xs: ReadonlyArray<number>) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))]!
const ms = (x: number) => x.toFixed(1)
const figures = {
  runs: RUNS,
  database: usePostgres ? "postgresql" : "embedded",
  loadavg: { before: loadBefore.map((x) => Number(x.toFixed(2))), after: loadAfter.map((x) => Number(x.toFixed(2))) },
  cpus: Os.cpus().length,
  js: {
    rawBytes: jsRaw,
    gzipBytes: jsGzip,
    budgetGzipBytes: BUDGET_GZIP_BYTES,
    files: files.map((f) => ({ src: f.src, cache: f.cache }))
  },
  fcpMs: { median: median(runs.map((r) => r.fcp)), p90: p90(runs.map((r) => r.fcp)) },
  primaryShownMs: { median: median(runs.map((r) => r.shown)), p90: p90(runs.map((r) => r.shown)) },
  primaryFrameMs: { median: median(runs.map((r) => r.frame)), p90: p90(runs.map((r) => r.frame)) },
  cls: { max: Math.max(...runs.map((r) => r.cls)), median: median(runs.map((r) => r.cls)) }
}
writeFigures("frontend", figures)
writeResult(
  "frontend",
  `# Front-end budget (storefront home and search island)

${
    new Date().toISOString()
  } · production build (\`node dist/main.js\`) · ${figures.database} database · headless Chromium at 390 × 844 · ${RUNS} sessions after 2 warm-up ones · RDAP stand-in answering after 50 ms.
Load average (1, 5, 15 min) ${figures.loadavg.before.join(", ")} before, ${
    figures.loadavg.after.join(", ")
  } after, on ${figures.cpus} CPUs.

| Figure | Median | p90 | Budget |
| --- | --- | --- | --- |
| JavaScript on \`/\`, gzipped (raw) | ${jsGzip} B (${jsRaw} B) | — | ≤ ${BUDGET_GZIP_BYTES} B |
| First contentful paint of \`/\` | ${ms(figures.fcpMs.median)} ms | ${ms(figures.fcpMs.p90)} ms | — |
| Primary row: stream chunk reaches the page → row in the DOM | ${ms(figures.primaryShownMs.median)} ms | ${
    ms(figures.primaryShownMs.p90)
  } ms | — |
| Primary row: stream chunk reaches the page → next animation frame (painted) | ${
    ms(figures.primaryFrameMs.median)
  } ms | ${ms(figures.primaryFrameMs.p90)} ms | — |
| Cumulative layout shift (load, typing, every row answered) | ${figures.cls.median.toFixed(4)} | max ${
    figures.cls.max.toFixed(4)
  } | 0 |

Scripts: ${files.map((f) => `\`${f.src}\` (${f.cache})`).join(", ") || "none"}.
`
)
