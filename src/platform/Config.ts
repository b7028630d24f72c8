/**
 * The service's configuration, read once from the environment (or from whatever
 * `ConfigProvider` a test installs). Every setting in README.md's table lives here.
 */
import { Config, ConfigError, Context, Duration, Effect, Either, Layer, Option, Redacted } from "effect"

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
  readonly port: number
  readonly host: string
  readonly baseUrl: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  /** `None` outside production when unset: the secret is then generated into DATA_DIR. */
  readonly serviceSecret: Option.Option<Redacted.Redacted>
  readonly adminToken: Option.Option<Redacted.Redacted>
  /** Number of proxies in front of the service whose `X-Forwarded-For` entries are trusted (0 = none). */
  readonly trustProxy: number
  readonly redisUrl: Option.Option<Redacted.Redacted>
  /** Per-operation rate-limit overrides: operation id → requests per window. */
  readonly rateLimits: Readonly<Record<string, number>>
  /** Operation id → deprecation, from DEPRECATIONS (JSON). */
  readonly deprecations: Readonly<Record<string, DeprecationEntry>>
  readonly logLevel: string
  readonly logFormat: "json" | "pretty"
  /** Registrar back-end (Realtime Register). Unset URL → no registrar calls. */
  readonly rtr: {
    readonly apiUrl: Option.Option<string>
    readonly apiKey: Option.Option<Redacted.Redacted>
    readonly customer: Option.Option<string>
    readonly timeout: Duration.Duration
    /** Markup added to registrar cost prices, in percent. */
    readonly markupPercent: number
  }
  /** TLD metadata older than this is reported `stale`. */
  readonly tldStaleAfter: Duration.Duration
  /** How often the scheduled fiber re-syncs TLD data and prices (0 disables). */
  readonly tldSyncInterval: Duration.Duration
  /** Run background workers (schedules, queues) in this process. */
  readonly workers: boolean
  readonly outboundAllowLoopback: boolean
  readonly shutdownGrace: Duration.Duration
  /** How long a process may serve catalogue (TLD/price) data written by another process. */
  readonly catalogueCacheTtl: Duration.Duration
}

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

/** RATE_LIMIT_<OP>=n, e.g. RATE_LIMIT_PRICING_TLD=500. Read from the raw environment map. */
const rateLimitsFromEnv = (env: NodeJS.ProcessEnv): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(env)) {
    const m = /^RATE_LIMIT_([A-Z0-9_]+)$/.exec(k)
    if (m && v !== undefined && /^\d+$/.test(v)) out[m[1].toLowerCase()] = Number(v)
  }
  return out
}

export const appConfig: Config.Config<AppConfigShape> = Config.all({
  nodeEnv: Config.string("NODE_ENV").pipe(Config.withDefault("development")),
  port: Config.integer("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  baseUrl: Config.option(Config.string("BASE_URL")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  serviceSecret: Config.option(Config.redacted("SERVICE_SECRET")),
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")),
  trustProxy: Config.string("TRUST_PROXY").pipe(Config.withDefault("false")),
  redisUrl: Config.option(Config.redacted("REDIS_URL")),
  rateLimitsJson: jsonRecord("RATE_LIMITS", (u) => (u ?? {}) as Record<string, number>),
  deprecations: jsonRecord("DEPRECATIONS", parseDeprecations),
  logLevel: Config.string("LOG_LEVEL").pipe(Config.withDefault("info")),
  logFormat: Config.literal("json", "pretty")("LOG_FORMAT").pipe(Config.withDefault("json" as const)),
  rtrApiUrl: Config.option(Config.string("RTR_API_URL")),
  rtrApiKey: Config.option(Config.redacted("RTR_API_KEY")),
  rtrCustomer: Config.option(Config.string("RTR_CUSTOMER")),
  rtrTimeout: Config.duration("RTR_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10))),
  markupPercent: Config.number("PRICE_MARKUP_PERCENT").pipe(Config.withDefault(20)),
  tldStaleAfter: Config.duration("TLD_STALE_AFTER").pipe(Config.withDefault(Duration.days(7))),
  tldSyncInterval: Config.duration("TLD_SYNC_INTERVAL").pipe(Config.withDefault(Duration.hours(24))),
  workers: Config.boolean("WORKERS").pipe(Config.withDefault(true)),
  outboundAllowLoopback: Config.boolean("OUTBOUND_ALLOW_LOOPBACK").pipe(Config.withDefault(false)),
  shutdownGrace: Config.duration("SHUTDOWN_GRACE").pipe(Config.withDefault(Duration.seconds(10))),
  catalogueCacheTtl: Config.duration("CATALOGUE_CACHE_TTL").pipe(Config.withDefault(Duration.seconds(5)))
}).pipe(
  Config.mapOrFail((c) => {
    const production = c.nodeEnv === "production"
    if (production && Option.isNone(c.serviceSecret)) {
      return Either.left(missing("SERVICE_SECRET is required when NODE_ENV=production"))
    }
    if (production && c.outboundAllowLoopback) {
      return Either.left(missing("OUTBOUND_ALLOW_LOOPBACK is refused when NODE_ENV=production"))
    }
    const trustProxy = c.trustProxy === "true" ? 1 : c.trustProxy === "false" ? 0 : Number(c.trustProxy)
    if (!Number.isInteger(trustProxy) || trustProxy < 0) {
      return Either.left(missing("TRUST_PROXY must be true, false or a number of trusted proxy hops"))
    }
    return Either.right<AppConfigShape>({
      production,
      port: c.port,
      host: c.host,
      baseUrl: Option.getOrElse(c.baseUrl, () => `http://localhost:${c.port}`).replace(/\/+$/, ""),
      databaseUrl: c.databaseUrl,
      dataDir: c.dataDir,
      serviceSecret: c.serviceSecret,
      adminToken: c.adminToken,
      trustProxy,
      redisUrl: c.redisUrl,
      rateLimits: { ...c.rateLimitsJson, ...rateLimitsFromEnv(process.env) },
      deprecations: c.deprecations,
      logLevel: c.logLevel,
      logFormat: c.logFormat,
      rtr: {
        apiUrl: c.rtrApiUrl,
        apiKey: c.rtrApiKey,
        customer: c.rtrCustomer,
        timeout: c.rtrTimeout,
        markupPercent: c.markupPercent
      },
      tldStaleAfter: c.tldStaleAfter,
      tldSyncInterval: c.tldSyncInterval,
      workers: c.workers,
      outboundAllowLoopback: c.outboundAllowLoopback,
      shutdownGrace: c.shutdownGrace,
      catalogueCacheTtl: c.catalogueCacheTtl
    })
  })
)

function missing(message: string) {
  return ConfigError.InvalidData([], message)
}

/** Fails start-up with the configuration error (printed by the launcher), never a half-configured service. */
export const AppConfigLive: Layer.Layer<AppConfig, ConfigError.ConfigError> = Layer.effect(AppConfig, appConfig)
