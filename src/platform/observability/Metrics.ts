/**
 * Prometheus metrics in the text exposition format 0.0.4 (served by platform/http/MetricsRoute.ts).
 *
 * Counters and histograms are Effect metrics (`effect/Metric`, the process-wide registry), updated
 * with `unsafeUpdate` on the hot path and rendered here from `Metric.unsafeSnapshot()`. Gauges that
 * describe state rather than events (database pool, webhook queue) are read at scrape time.
 *
 * Label values are bounded: requests are labelled by route TEMPLATE
 * (`/api/partner/v1/orders/{public_id}`), never the raw path; a path no route knows is
 * `route="unmatched"`. See docs/operations.md, "Metrics and logs".
 */
import { Context, Effect, Metric, MetricBoundaries, MetricLabel, MetricState, Option } from "effect"
import type pg from "pg"
import { collectDefaultMetrics, Registry } from "prom-client"

// ---------------------------------------------------------------------------
// Instruments

const HELP: Record<string, { readonly type: "counter" | "histogram" | "gauge"; readonly help: string }> = {
  http_requests_total: {
    type: "counter",
    help: "HTTP requests answered, by method, route template and status (499: the client hung up)."
  },
  http_request_duration_seconds: {
    type: "histogram",
    help: "Time from request to response, by method and route template."
  },
  rate_limit_denials_total: { type: "counter", help: "Requests refused by a rate-limit policy, by policy id." },
  settlement_runs_total: {
    type: "counter",
    help: "Settlement runs started by this process, by outcome (completed, skipped, failed)."
  }
}

const requestsTotal = Metric.counter("http_requests_total", { incremental: true })
const requestDuration = Metric.histogram(
  "http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
)
const rateLimitDenials = Metric.counter("rate_limit_denials_total", { incremental: true })
const settlementRuns = Metric.counter("settlement_runs_total", { incremental: true })

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/**
 * The label arrays of one (method, route, status), made once: Effect caches a metric's tagged
 * instance by the identity of the label array, so a fresh array per request meant a new metric
 * key (hashed, merged with the metric's tags, looked up in the registry) twice per request.
 * Bounded: methods are the known ones or OTHER, routes are templates, statuses are few.
 */
const requestLabels = new Map<
  string,
  { readonly total: ReadonlyArray<MetricLabel.MetricLabel>; readonly duration: ReadonlyArray<MetricLabel.MetricLabel> }
>()

/** Records one answered request (called by the access-log middleware). */
export const recordRequest = (method: string, route: string, status: number, seconds: number): void => {
  const m = KNOWN_METHODS.has(method) ? method : "OTHER"
  const key = `${m} ${status} ${route}`
  let labels = requestLabels.get(key)
  if (labels === undefined) {
    const methodLabel = MetricLabel.make("method", m)
    const routeLabel = MetricLabel.make("route", route)
    labels = {
      total: [methodLabel, routeLabel, MetricLabel.make("status", String(status))],
      duration: [methodLabel, routeLabel]
    }
    requestLabels.set(key, labels)
  }
  requestsTotal.unsafeUpdate(1, labels.total)
  requestDuration.unsafeUpdate(seconds, labels.duration)
}

export const recordRateLimitDenial = (policyId: string): void =>
  rateLimitDenials.unsafeUpdate(1, [MetricLabel.make("policy", policyId)])

export const recordSettlementRun = (outcome: "completed" | "skipped" | "failed"): void =>
  settlementRuns.unsafeUpdate(1, [MetricLabel.make("outcome", outcome)])

/**
 * Routes served beside the HttpApi (not in its route table): exact paths, and `/docs/{page}`.
 * Everything else no route knows is `unmatched`.
 */
const EXTRA_ROUTES = new Set([
  "/metrics",
  "/docs",
  "/api/openapi.json",
  "/mcp",
  "/llms.txt",
  "/llms-full.txt",
  "/.well-known/mcp/server-card.json"
])

/** The route label of a request: its template, a known extra route, or `unmatched`. */
export const routeLabel = (template: string | undefined, path: string): string => {
  if (template !== undefined) return template
  if (EXTRA_ROUTES.has(path)) return path
  if (/^\/docs\/[^/]+$/.test(path)) return "/docs/{page}"
  return "unmatched"
}

// ---------------------------------------------------------------------------
// Database pools (registered by src/platform/db/Database.ts while open)

const pools = new Set<pg.Pool>()

export const registerPool = (pool: pg.Pool): void => void pools.add(pool)
export const unregisterPool = (pool: pg.Pool): void => void pools.delete(pool)

// ---------------------------------------------------------------------------
// Rendering

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, "\\\"")
const labels = (pairs: ReadonlyArray<readonly [string, string]>) =>
  pairs.length === 0 ? "" : `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`
const num = (n: number) => (n === Infinity ? "+Inf" : n === -Infinity ? "-Inf" : String(n))

export interface Gauge {
  readonly name: string
  readonly help: string
  readonly samples: ReadonlyArray<readonly [ReadonlyArray<readonly [string, string]>, number]>
}

/** The Effect metrics of `HELP` plus the given gauges, in the text exposition format 0.0.4. */
export const renderMetrics = (gauges: ReadonlyArray<Gauge>): string => {
  const byName = new Map<string, Array<string>>()
  for (const pair of Metric.unsafeSnapshot()) {
    const name = pair.metricKey.name
    if (HELP[name] === undefined) continue
    const tags = pair.metricKey.tags.map((t) => [t.key, t.value] as const)
    const lines = byName.get(name) ?? []
    byName.set(name, lines)
    const state = pair.metricState
    if (MetricState.isCounterState(state)) {
      lines.push(`${name}${labels(tags)} ${num(Number(state.count))}`)
    } else if (MetricState.isHistogramState(state)) {
      for (const [bound, count] of state.buckets) {
        lines.push(`${name}_bucket${labels([...tags, ["le", num(bound)]])} ${count}`)
      }
      if (!state.buckets.some(([b]) => b === Infinity)) {
        lines.push(`${name}_bucket${labels([...tags, ["le", "+Inf"]])} ${state.count}`)
      }
      lines.push(`${name}_sum${labels(tags)} ${state.sum}`)
      lines.push(`${name}_count${labels(tags)} ${state.count}`)
    }
  }
  const out: Array<string> = []
  for (const [name, meta] of Object.entries(HELP)) {
    out.push(`# HELP ${name} ${meta.help}`, `# TYPE ${name} ${meta.type}`, ...(byName.get(name) ?? []))
  }
  for (const g of gauges) {
    out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`)
    for (const [l, v] of g.samples) out.push(`${g.name}${labels(l)} ${num(v)}`)
  }
  return out.join("\n") + "\n"
}

const poolGauges = (): Array<Gauge> => {
  let total = 0, idle = 0, waiting = 0, max = 0
  for (const p of pools) {
    total += p.totalCount
    idle += p.idleCount
    waiting += p.waitingCount
    max += p.options?.max ?? 0
  }
  return [
    {
      name: "db_pool_connections",
      help: "Database pool connections by state (in_use = total - idle).",
      samples: [[[["state", "total"]], total], [[["state", "idle"]], idle], [[["state", "in_use"]], total - idle]]
    },
    {
      name: "db_pool_waiting_requests",
      help: "Queries waiting for a free database connection.",
      samples: [[[], waiting]]
    },
    { name: "db_pool_max_connections", help: "Configured size of the database pool.", samples: [[[], max]] }
  ]
}

/**
 * Gauges a capability reads from its own tables at scrape time (the partner webhooks: their
 * delivery backlog). Optional: without it `/metrics` has the process gauges only.
 */
export class ScrapeGauges extends Context.Tag("platform/ScrapeGauges")<ScrapeGauges, {
  readonly read: Effect.Effect<ReadonlyArray<Gauge>>
}>() {}

/**
 * Process and runtime metrics (CPU, memory and heap, event-loop lag, GC, handles, Node version)
 * from `prom-client`'s default collectors, in a registry of their own (made once per process:
 * the collectors start timers and observers), appended to every scrape.
 */
let runtimeRegistry: Registry | undefined
const runtimeMetrics = Effect.promise(() => {
  if (runtimeRegistry === undefined) {
    runtimeRegistry = new Registry()
    collectDefaultMetrics({ register: runtimeRegistry })
  }
  return runtimeRegistry.metrics()
})

/**
 * The whole scrape: the Effect metrics, the pool gauges, the capability gauges read at scrape time
 * (None: the database did not answer them, which `metrics_scrape_database_ok` says), then the
 * runtime metrics.
 */
export const renderScrape = (gauges: Option.Option<ReadonlyArray<Gauge>>): Effect.Effect<string> =>
  Effect.map(runtimeMetrics, (runtime) =>
    renderMetrics([
      ...poolGauges(),
      ...Option.getOrElse(gauges, () => []),
      {
        name: "metrics_scrape_database_ok",
        help: "1 when the scrape could read the database-backed gauges.",
        samples: [[[], Option.isSome(gauges) ? 1 : 0]]
      }
    ]) + runtime)
