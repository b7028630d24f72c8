/**
 * The platform's configuration (listener, database, secrets, logging, tracing, rate limits,
 * outbound policy), read once from the environment (or from whatever `ConfigProvider` a test
 * installs). Each capability reads its own settings with `Config` in its own `Settings.ts`
 * (src/<capability>/Settings.ts); this file imports no capability.
 */
import { Config, ConfigError, Context, Duration, Effect, Either, HashSet, Layer, Option, Redacted } from "effect"
import { deploymentConfig, refusesStandIns, standInRefusal } from "./Deployment.js"
import { durationSetting } from "./DurationSetting.js"
import { tracingConfig, type TracingSettings } from "./observability/TracingSettings.js"

export interface DeprecationEntry {
  /** When the operation was (or will be) deprecated. */
  readonly deprecatedAt: Date
  /** When it stops working (RFC 8594 Sunset). */
  readonly sunsetAt: Date
  /** Documentation link announced with `rel="deprecation"`. */
  readonly link: string
}

export interface AppConfigShape {
  readonly production: boolean
  /** TEST_MODE=true: a test deployment (sandbox stand-ins allowed in production; every page says "Test mode"). */
  readonly testMode: boolean
  readonly port: number
  readonly host: string
  readonly baseUrl: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  /** `None` outside production when unset: the secret is then generated into DATA_DIR. */
  readonly serviceSecret: Option.Option<Redacted.Redacted>
  readonly adminToken: Option.Option<Redacted.Redacted>
  /** When set, `GET /metrics` needs it as a bearer token. */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /**
   * When set, `/metrics` is served on a second listener on this port (same HOST), and not on PORT.
   * Production needs METRICS_TOKEN or this.
   */
  readonly metricsPort: Option.Option<number>
  /** Number of proxies in front of the service whose `X-Forwarded-For` entries are trusted (0 = none). */
  readonly trustProxy: number
  readonly redisUrl: Option.Option<Redacted.Redacted>
  /** Per-operation rate-limit overrides: operation id → requests per window. */
  readonly rateLimits: Readonly<Record<string, number>>
  /** Operation id → deprecation, from DEPRECATIONS (JSON). */
  readonly deprecations: Readonly<Record<string, DeprecationEntry>>
  readonly logLevel: string
  readonly logFormat: "json" | "pretty"
  /** Run background workers (schedules, queues) in this process. */
  readonly workers: boolean
  readonly outboundAllowLoopback: boolean
  readonly shutdownGrace: Duration.Duration
  /** After SIGTERM, /readyz answers 503 for this long before the listener closes (SHUTDOWN_DRAIN_DELAY, default 1 s). */
  readonly shutdownDrainDelay: Duration.Duration
  /** Database time limits (docs/operations.md, "Database outages"). */
  readonly database: DatabaseSettings
  /** How long an in-flight Idempotency-Key claim holds without renewal (IDEMPOTENCY_LEASE, default 5 s). */
  readonly idempotencyLease: Duration.Duration
  /** Ports outbound HTTP to user-influenced URLs may use (OUTBOUND_ALLOWED_PORTS, default 80,443). */
  readonly outboundAllowedPorts: ReadonlyArray<number>
  readonly http: HttpSettings
  /** OpenTelemetry trace export (OTEL_* variables; src/platform/observability/TracingSettings.ts). */
  readonly tracing: TracingSettings
}

export interface DatabaseSettings {
  /** Opening a new connection (DB_CONNECT_TIMEOUT, default 3 s). */
  readonly connectTimeout: Duration.Duration
  /** Waiting for a free connection of the pool (DB_ACQUIRE_TIMEOUT, default 5 s). */
  readonly acquireTimeout: Duration.Duration
  /** One statement, enforced by the server and by the client (DB_STATEMENT_TIMEOUT, default 5 s). */
  readonly statementTimeout: Duration.Duration
}

const databaseConfig: Config.Config<DatabaseSettings> = Config.all({
  connectTimeout: durationSetting("DB_CONNECT_TIMEOUT", Duration.seconds(3)),
  acquireTimeout: durationSetting("DB_ACQUIRE_TIMEOUT", Duration.seconds(5)),
  statementTimeout: durationSetting("DB_STATEMENT_TIMEOUT", Duration.seconds(5))
})

export class AppConfig extends Context.Tag("app/AppConfig")<AppConfig, AppConfigShape>() {}

const jsonRecord = <A>(name: string, parse: (u: unknown) => A): Config.Config<A> =>
  Config.string(name).pipe(
    Config.mapOrFail((s) => {
      try {
        return Either.right(parse(JSON.parse(s)))
      } catch (e) {
        return Either.left(ConfigError.InvalidData([name], String(e)))
      }
    }),
    Config.withDefault(parse({}))
  )

const parseDeprecations = (u: unknown): Record<string, DeprecationEntry> => {
  const out: Record<string, DeprecationEntry> = {}
  if (typeof u !== "object" || u === null) throw new Error("DEPRECATIONS must be a JSON object")
  for (const [op, v] of Object.entries(u as Record<string, any>)) {
    const deprecatedAt = new Date(v.deprecation ?? v.deprecatedAt)
    const sunsetAt = new Date(v.sunset ?? v.sunsetAt)
    if (Number.isNaN(deprecatedAt.getTime()) || Number.isNaN(sunsetAt.getTime()) || typeof v.link !== "string") {
      throw new Error(`DEPRECATIONS.${op} needs deprecation, sunset (dates) and link`)
    }
    out[op] = { deprecatedAt, sunsetAt, link: v.link }
  }
  return out
}

const portList = (name: string, fallback: ReadonlyArray<number>): Config.Config<ReadonlyArray<number>> =>
  Config.string(name).pipe(
    Config.mapOrFail((s) => {
      const ports = s.split(",").map((p) => p.trim()).filter((p) => p !== "").map(Number)
      return ports.every((p) => Number.isInteger(p) && p > 0 && p < 65536)
        ? Either.right(ports)
        : Either.left(ConfigError.InvalidData([name], `${name} must be a comma list of ports`))
    }),
    Config.withDefault(fallback)
  )

const RATE_LIMIT_PREFIX = "RATE_LIMIT_"

/**
 * RATE_LIMIT_<OP>=n, e.g. RATE_LIMIT_PRICING_TLD=500: every such name the current
 * `ConfigProvider` knows (the environment, or the map a test installs). The names are found by
 * walking the provider's keys: the environment provider splits them on `_`, a map provider does not.
 */
const rateLimitOverrides: Effect.Effect<Record<string, number>> = Effect.configProviderWith((provider) => {
  const names = (path: ReadonlyArray<string>): Effect.Effect<Array<string>> =>
    provider.flattened.enumerateChildren(path).pipe(
      Effect.orElseSucceed(() => HashSet.empty<string>()),
      Effect.flatMap((children) =>
        Effect.forEach(HashSet.toValues(children), (child): Effect.Effect<Array<string>> => {
          const next = [...path, child]
          const name = next.join("_")
          if (name.startsWith(RATE_LIMIT_PREFIX)) return Effect.map(names(next), (more) => [name, ...more])
          return RATE_LIMIT_PREFIX.startsWith(`${name}_`) ? names(next) : Effect.succeed([])
        })
      ),
      Effect.map((found) => found.flat())
    )
  const valueOf = (name: string): Effect.Effect<Array<[string, number]>> =>
    Effect.map(Effect.either(provider.load(Config.string(name))), (value) => {
      const m = /^RATE_LIMIT_([A-Z0-9_]+)$/.exec(name)
      return m && Either.isRight(value) && /^\d+$/.test(value.right) ? [[m[1].toLowerCase(), Number(value.right)]] : []
    })
  return names([]).pipe(
    Effect.flatMap((found) => Effect.forEach(new Set(found), valueOf)),
    Effect.map((entries) => Object.fromEntries(entries.flat()))
  )
})

/** Limits every request is held to (src/platform/http/RequestGuard.ts). */
export interface HttpSettings {
  /** Largest request body accepted (MAX_BODY_BYTES, default 1 MiB); larger bodies get 413. */
  readonly maxBodyBytes: number
  /** Longest a handler may run (REQUEST_TIMEOUT, default 30 s); then 503 request_timeout. */
  readonly requestTimeout: Duration.Duration
  /** Longest the request line and headers may take to arrive (REQUEST_HEADERS_TIMEOUT, default 5 s); then 408. */
  readonly headersTimeout: Duration.Duration
  /** Longest a declared body may take to arrive, whole (REQUEST_BODY_TIMEOUT, default 10 s); then 408. */
  readonly bodyTimeout: Duration.Duration
}

const httpConfig: Config.Config<HttpSettings> = Config.all({
  maxBodyBytes: Config.integer("MAX_BODY_BYTES").pipe(Config.withDefault(1024 * 1024)),
  requestTimeout: durationSetting("REQUEST_TIMEOUT", Duration.seconds(30)),
  headersTimeout: durationSetting("REQUEST_HEADERS_TIMEOUT", Duration.seconds(5)),
  bodyTimeout: durationSetting("REQUEST_BODY_TIMEOUT", Duration.seconds(10))
})

export const appConfig: Config.Config<AppConfigShape> = Config.all({
  deployment: deploymentConfig,
  port: Config.integer("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  baseUrl: Config.option(Config.string("BASE_URL")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  serviceSecret: Config.option(Config.redacted("SERVICE_SECRET")),
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")),
  metricsToken: Config.option(Config.redacted("METRICS_TOKEN")),
  metricsPort: Config.option(Config.port("METRICS_PORT")),
  trustProxy: Config.string("TRUST_PROXY").pipe(Config.withDefault("false")),
  redisUrl: Config.option(Config.redacted("REDIS_URL")),
  rateLimitsJson: jsonRecord("RATE_LIMITS", (u) => (u ?? {}) as Record<string, number>),
  deprecations: jsonRecord("DEPRECATIONS", parseDeprecations),
  logLevel: Config.string("LOG_LEVEL").pipe(Config.withDefault("info")),
  logFormat: Config.literal("json", "pretty")("LOG_FORMAT").pipe(Config.withDefault("json" as const)),
  workers: Config.boolean("WORKERS").pipe(Config.withDefault(true)),
  outboundAllowLoopback: Config.boolean("OUTBOUND_ALLOW_LOOPBACK").pipe(Config.withDefault(false)),
  shutdownGrace: durationSetting("SHUTDOWN_GRACE", Duration.seconds(10)),
  shutdownDrainDelay: durationSetting("SHUTDOWN_DRAIN_DELAY", Duration.seconds(1)),
  database: databaseConfig,
  idempotencyLease: durationSetting("IDEMPOTENCY_LEASE", Duration.seconds(5)),
  outboundAllowedPorts: portList("OUTBOUND_ALLOWED_PORTS", [80, 443]),
  http: httpConfig,
  tracing: tracingConfig
}).pipe(
  Config.mapOrFail((c) => {
    const production = c.deployment.production
    if (production && Option.isNone(c.serviceSecret)) {
      return Either.left(missing("SERVICE_SECRET is required when NODE_ENV=production"))
    }
    if (production) {
      for (const [name, secret] of [["SERVICE_SECRET", c.serviceSecret], ["ADMIN_TOKEN", c.adminToken]] as const) {
        const weak = Option.flatMap(secret, (s) => Option.fromNullable(weakSecret(Redacted.value(s))))
        if (Option.isSome(weak)) return Either.left(missing(`${name} ${weak.value} when NODE_ENV=production`))
      }
    }
    if (Option.isSome(c.metricsPort) && c.metricsPort.value === c.port) {
      return Either.left(missing("METRICS_PORT must differ from PORT"))
    }
    // Behind the shipped proxy every path of PORT is public, /metrics included.
    if (production && Option.isNone(c.metricsToken) && Option.isNone(c.metricsPort)) {
      return Either.left(missing(
        "METRICS_TOKEN is required when NODE_ENV=production (GET /metrics would be public): set METRICS_TOKEN, or METRICS_PORT to serve metrics on a separate listener your proxy does not expose"
      ))
    }
    if (production && c.outboundAllowLoopback) {
      return Either.left(missing("OUTBOUND_ALLOW_LOOPBACK is refused when NODE_ENV=production"))
    }
    if (refusesStandIns(c.deployment) && Option.isNone(c.databaseUrl)) {
      return Either.left(missing(standInRefusal(
        "The embedded database (DATABASE_URL unset)",
        "is for development (one process, no replicas)",
        "set DATABASE_URL to a PostgreSQL server"
      )))
    }
    const trustProxy = c.trustProxy === "true" ? 1 : c.trustProxy === "false" ? 0 : Number(c.trustProxy)
    if (!Number.isInteger(trustProxy) || trustProxy < 0) {
      return Either.left(missing("TRUST_PROXY must be true, false or a number of trusted proxy hops"))
    }
    return Either.right<AppConfigShape>({
      production,
      testMode: c.deployment.testMode,
      port: c.port,
      host: c.host,
      baseUrl: Option.getOrElse(c.baseUrl, () => `http://localhost:${c.port}`).replace(/\/+$/, ""),
      databaseUrl: c.databaseUrl,
      dataDir: c.dataDir,
      serviceSecret: c.serviceSecret,
      adminToken: c.adminToken,
      metricsToken: c.metricsToken,
      metricsPort: c.metricsPort,
      trustProxy,
      redisUrl: c.redisUrl,
      rateLimits: c.rateLimitsJson,
      deprecations: c.deprecations,
      logLevel: c.logLevel,
      logFormat: c.logFormat,
      workers: c.workers,
      outboundAllowLoopback: c.outboundAllowLoopback,
      shutdownGrace: c.shutdownGrace,
      shutdownDrainDelay: c.shutdownDrainDelay,
      database: c.database,
      idempotencyLease: c.idempotencyLease,
      outboundAllowedPorts: c.outboundAllowedPorts,
      http: c.http,
      tracing: c.tracing
    })
  })
)

/** The shortest secret production accepts: 32 characters (e.g. `openssl rand -base64 32` gives 44). */
export const MIN_SECRET_LENGTH = 32

const PLACEHOLDER = /change[-_ ]?me|changeme|placeholder|example|secret|password|xxxx|todo/i

/** Why a production secret is refused (too short, a placeholder, one repeated character), or undefined. */
export const weakSecret = (value: string): string | undefined =>
  value.length < MIN_SECRET_LENGTH
    ? `is too short (${value.length} characters; at least ${MIN_SECRET_LENGTH})`
    : PLACEHOLDER.test(value)
    ? "looks like a placeholder (set a long random value, e.g. `openssl rand -base64 32`)"
    : new Set(value).size < 8
    ? "is not random enough (too few distinct characters)"
    : undefined

function missing(message: string) {
  return ConfigError.InvalidData([], message)
}

/**
 * Fails start-up with the configuration error (printed by the launcher), never a half-configured
 * service. `RATE_LIMIT_<OP>` variables override `RATE_LIMITS` (JSON).
 */
export const AppConfigLive: Layer.Layer<AppConfig, ConfigError.ConfigError> = Layer.effect(
  AppConfig,
  Effect.zipWith(appConfig, rateLimitOverrides, (c, overrides) => ({
    ...c,
    rateLimits: { ...c.rateLimits, ...overrides }
  }))
)
