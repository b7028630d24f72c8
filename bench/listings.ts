/**
 * GET /api/market/listings page latency on a 1,000,000-listing catalogue in the local
 * PostgreSQL: page 1 versus a page at depth 900,000, by cursor and by offset, for the newest and
 * price sorts. The cursor at depth 900,000 is the next_cursor of the offset page just before it.
 *
 *   npm run bench -- listings   (needs the local PostgreSQL; uses a private database bench_listings)
 *
 * Target: a cursor page at depth 900,000 within 1.5× the latency of page 1.
 */
import * as Http from "node:http"
import pg from "pg"
import { compile, postgresReachable, privateDatabase, serviceEnv, start, writeFigures, writeResult } from "./lib.js"

const ROWS = Number(process.env.BENCH_LISTINGS ?? 1_000_000)
const DEPTH = Math.floor(ROWS * 0.9)
const LIMIT = 24
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100)
/** Offset pages at depth read ~900,000 rows each: a few samples are enough. */
const DEEP_OFFSET_SAMPLES = 10

if (!(await postgresReachable())) {
  console.error("bench listings needs the local PostgreSQL (127.0.0.1:5432)")
  process.exit(1)
}
const database = await privateDatabase("bench_listings")
const databaseUrl = database.url

const env = {
  ...serviceEnv,
  WORKERS: "false",
  DATABASE_URL: databaseUrl,
  DEMO_LISTINGS: "false",
  SANDBOX_INVENTORY: "false",
  RATE_LIMIT_MARKET_LISTINGS: "1000000000"
}
const mainFile = await compile("src/main.ts")

// First start runs the migrations; then the catalogue is loaded behind the service's back (bulk).
let service = await start(mainFile, env, "/api/market/listings")
await service.stop()

const db = new pg.Client({ connectionString: databaseUrl })
await db.connect()
const loadStarted = performance.now()
// Trigram indexes are built once after the load rather than maintained row by row.
await db.query("drop index listings_domain_trgm, listings_domain_unicode_trgm")
await db.query(`
  insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents, listed_at)
  select 'lst_' || lpad(g::text, 9, '0'), 'live', d, d, t, l,
         case when g % 10 = 0 then null else 10000 + (g::bigint * 7919) % 5000000 end,
         5000 + (g::bigint * 104729) % 1000000,
         timestamptz '2026-01-01' - make_interval(secs => (g::bigint * 7) % 31536000)
  from (select g, 'name' || g as l, (array['com','net','io','org'])[1 + g % 4] as t from generate_series(1, ${ROWS}) g) s,
       lateral (select l || '.' || t as d) dd`)
await db.query("create index listings_domain_trgm on listings using gin (domain gin_trgm_ops)")
await db.query("create index listings_domain_unicode_trgm on listings using gin (domain_unicode gin_trgm_ops)")
await db.query("vacuum analyze listings")
const loadSeconds = (performance.now() - loadStarted) / 1000
await db.end()

service = await start(mainFile, env, "/api/market/listings")
const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })

const getJson = (path: string) =>
  new Promise<{ ms: number; json: any }>((resolve, reject) => {
    const t0 = performance.now()
    Http.get(`${service.url}${path}`, { agent }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c) => (body += c))
      res.on("end", () => {
        if (res.statusCode !== 200) return reject(new Error(`${path}: ${res.statusCode} ${body}`))
        resolve({ ms: performance.now() - t0, json: JSON.parse(body) })
      })
    }).on("error", reject)
  })

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]
}

const measure = async (path: string, samples = SAMPLES, warmup = 20) => {
  for (let i = 0; i < warmup; i++) await getJson(path)
  const ms: Array<number> = []
  for (let i = 0; i < samples; i++) ms.push((await getJson(path)).ms)
  return { p50: quantile(ms, 0.5), p99: quantile(ms, 0.99) }
}

interface Row {
  readonly sort: string
  readonly first: { p50: number; p99: number }
  readonly cursorDeep: { p50: number; p99: number }
  readonly offsetDeep: { p50: number; p99: number }
}

const rows: Array<Row> = []
for (const sort of ["newest", "price_asc", "price_desc"]) {
  const base = `/api/market/listings?sort=${sort}&limit=${LIMIT}`
  const first = await measure(base)
  const before = await getJson(`${base}&offset=${DEPTH - LIMIT}`)
  const cursor = before.json.page.next_cursor as string
  const cursorPath = `${base}&cursor=${encodeURIComponent(cursor)}`
  // The cursor page is exactly the offset page at the same depth.
  const viaOffset = await getJson(`${base}&offset=${DEPTH}`)
  const viaCursor = await getJson(cursorPath)
  if (
    JSON.stringify(viaOffset.json.items.map((i: any) => i.id)) !==
      JSON.stringify(viaCursor.json.items.map((i: any) => i.id))
  ) {
    throw new Error(`${sort}: the cursor page differs from the offset page at depth ${DEPTH}`)
  }
  rows.push({
    sort,
    first,
    cursorDeep: await measure(cursorPath),
    offsetDeep: await measure(`${base}&offset=${DEPTH}`, DEEP_OFFSET_SAMPLES, 2)
  })
}
// A filter whose total has not been counted yet (no cached count): the cost of counting. (Anonymous,
// so a substring filter: price filters need a bearer token with pricing:read.)
const uncountedQ = `name${Math.floor(Math.random() * 900) + 100}`
const uncounted = await getJson(`/api/market/listings?limit=${LIMIT}&q=${uncountedQ}`)
const q = await measure(`/api/market/listings?limit=${LIMIT}&q=name12345`)

await service.stop()
agent.destroy()
await database.drop()

const f = (n: number) => n.toFixed(1)
writeFigures("listings", { rows })
writeResult(
  "listings",
  `# GET /api/market/listings at depth

Run: ${new Date().toISOString()} · Node ${process.version} · compiled with esbuild · local PostgreSQL ·
${ROWS.toLocaleString("en-US")} live listings (bulk-loaded in ${
    loadSeconds.toFixed(0)
  } s), limit ${LIMIT} · one keep-alive
connection, ${SAMPLES} sequential requests per figure after 20 warm-up requests (deep offset pages: ${DEEP_OFFSET_SAMPLES}) · anonymous (prices masked).

| sort | page 1 p50 / p99 ms | cursor at ${
    DEPTH.toLocaleString("en-US")
  } p50 / p99 ms | cursor ÷ page 1 (p50) | offset ${DEPTH.toLocaleString("en-US")} p50 / p99 ms |
|---|---:|---:|---:|---:|
${
    rows.map((r) =>
      `| ${r.sort} | ${f(r.first.p50)} / ${f(r.first.p99)} | ${f(r.cursorDeep.p50)} / ${f(r.cursorDeep.p99)} | **${
        (r.cursorDeep.p50 / r.first.p50).toFixed(2)
      }** | ${f(r.offsetDeep.p50)} / ${f(r.offsetDeep.p99)} |`
    ).join("\n")
  }

Target: cursor page at depth ${DEPTH.toLocaleString("en-US")} within 1.5× page 1 — ${
    rows.every((r) => r.cursorDeep.p50 <= 1.5 * r.first.p50) ? "met for every sort" : "**missed**"
  }.

- \`q=name12345\` (trigram index, substring): p50 ${f(q.p50)} ms, p99 ${f(q.p99)} ms.
- A page whose filters (\`q=${uncountedQ}\`) were not counted in the last ${"LISTINGS_COUNT_CACHE_TTL"} (5 s): ${
    f(uncounted.ms)
  } ms — counting
  matching rows is the one cost that grows with the catalogue; it is reused for 5 s per filter set.

Cursor pages are one index range scan (\`(listed_at, id) < (…)\` or \`(coalesce(bin_price_cents, …), id) > (…)\`
on the matching composite index), so their cost does not depend on depth; offset pages read and
discard every row before the offset.
`
)
