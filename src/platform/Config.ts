/**
 * The service's configuration, read once from the environment (or from whatever
 * `ConfigProvider` a test installs). Every setting in README.md's table lives here.
 */
import { Config, ConfigError, Context, Duration, Either, Layer, Option, Redacted } from "effect"
import { checkoutConfig, type CheckoutSettings } from "../checkout/Settings.js"
import { brokerageConfig, type BrokerageSettings } from "../partner/brokerage/Settings.js"
import { ledgerConfig, type LedgerSettings } from "../partner/ledger/Settings.js"
import { partnerConfig, type PartnerSettings } from "../partner/Settings.js"
import { referralConfig, type ReferralSettings } from "../referrals/Settings.js"
import { tracingConfig, type TracingSettings } from "./TracingSettings.js"

/** Accounts, sessions and the OAuth 2.1 authorization server (docs/identity.md). */
export interface IdentitySettings {
  /** Lifetime of a sign-in session (SESSION_TTL, default 14 days). */
  readonly sessionTtl: Duration.Duration
  /** Authorization codes (OAUTH_CODE_TTL, default 60 s; single use). */
  readonly codeTtl: Duration.Duration
  /** Access tokens (OAUTH_ACCESS_TOKEN_TTL, default 30 min). */
  readonly accessTokenTtl: Duration.Duration
  /** Refresh tokens (OAUTH_REFRESH_TOKEN_TTL, default 30 days; rotated on every use). */
  readonly refreshTokenTtl: Duration.Duration
}

const identityConfig: Config.Config<IdentitySettings> = Config.all({
  sessionTtl: Config.duration("SESSION_TTL").pipe(Config.withDefault(Duration.days(14))),
  codeTtl: Config.duration("OAUTH_CODE_TTL").pipe(Config.withDefault(Duration.seconds(60))),
  accessTokenTtl: Config.duration("OAUTH_ACCESS_TOKEN_TTL").pipe(Config.withDefault(Duration.minutes(30))),
  refreshTokenTtl: Config.duration("OAUTH_REFRESH_TOKEN_TTL").pipe(Config.withDefault(Duration.days(30)))
})

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
  /** When set, `GET /metrics` needs it as a bearer token. */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /** Accounts, sessions, OAuth lifetimes. */
  readonly identity: IdentitySettings
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
  /** After SIGTERM, /readyz answers 503 for this long before the listener closes (SHUTDOWN_DRAIN_DELAY, default 1 s). */
  readonly shutdownDrainDelay: Duration.Duration
  /** Database time limits (docs/operations.md, "Database outages"). */
  readonly database: DatabaseSettings
  /** How long an in-flight Idempotency-Key claim holds without renewal (IDEMPOTENCY_LEASE, default 5 s). */
  readonly idempotencyLease: Duration.Duration
  /** How long a process may serve catalogue (TLD/price) data written by another process. */
  readonly catalogueCacheTtl: Duration.Duration
  /** Availability engine, search stream, alternates (docs/search.md). */
  readonly availability: AvailabilitySettings
  /** Marketplace inventory: demo catalogue, sandbox inventory, listing pages (docs/market.md). */
  readonly market: MarketSettings
  /** WHOIS/RDAP lookups, the free tools and their jobs (docs/lookup.md, docs/tools.md). */
  readonly lookup: LookupSettings
  /** Ports outbound HTTP to user-influenced URLs may use (OUTBOUND_ALLOWED_PORTS, default 80,443). */
  readonly outboundAllowedPorts: ReadonlyArray<number>
  /** Partner API: review threshold, signing skew, webhook delivery (src/partner/Settings.ts). */
  readonly partner: PartnerSettings
  readonly http: HttpSettings
  /** Ledger, settlement and payouts (src/partner/ledger/Settings.ts). */
  readonly ledger: LedgerSettings
  /** Brokerage fee, partner share, live-site probe (src/partner/brokerage/Settings.ts). */
  readonly brokerage: BrokerageSettings
  /** OpenTelemetry trace export (OTEL_* variables; src/platform/TracingSettings.ts). */
  readonly tracing: TracingSettings
  /** Referral links, clicks and attribution (src/referrals/Settings.ts). */
  readonly referrals: ReferralSettings
  /** Hosted checkout: payment provider, session lifetime, reconciliation (src/checkout/Settings.ts). */
  readonly checkout: CheckoutSettings
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
  connectTimeout: Config.duration("DB_CONNECT_TIMEOUT").pipe(Config.withDefault(Duration.seconds(3))),
  acquireTimeout: Config.duration("DB_ACQUIRE_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5))),
  statementTimeout: Config.duration("DB_STATEMENT_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5)))
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

export interface LookupSettings {
  /** IANA-format `dns.json`; empty string: bundled snapshot only. */
  readonly rdapBootstrapUrl: string
  /** Age after which a process re-fetches the bootstrap file. */
  readonly rdapBootstrapRefresh: Duration.Duration
  /** `live` talks to RDAP servers; `sandbox` answers every lookup at once with an error (no network). */
  readonly rdapMode: "live" | "sandbox"
  /** Per RDAP request (each redirect hop included). */
  readonly rdapTimeout: Duration.Duration
  readonly rdapMaxRedirects: number
  /** A 429 whose Retry-After is within this is waited out once; longer ones fail at once. */
  readonly rdapRetryAfterCap: Duration.Duration
  readonly whoisReferralServer: string
  /** Port of every WHOIS connection. */
  readonly whoisPort: number
  readonly whoisTimeout: Duration.Duration
  readonly whoisMaxReferrals: number
  readonly whoisMaxBytes: number
  /** Daily WHOIS lookups for a bearer-token caller (anonymous: 10, RATE_LIMIT_WHOIS). */
  readonly bearerWhoisCap: number
  /** `host:port` of the DNS resolver the dns-lookup tool asks; None: the system's resolvers. */
  readonly dnsResolver: Option.Option<string>
  /** How long finished tool jobs are kept. */
  readonly jobRetention: Duration.Duration
  /** A running job whose worker has not renewed its lease for this long is claimed again. */
  readonly jobLease: Duration.Duration
  /** Tool-job worker fibers per process. */
  readonly jobConcurrency: number
  /** Identical inline tool calls within this are answered from cache (`cached: true`). */
  readonly toolCacheTtl: Duration.Duration
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

const lookupConfig: Config.Config<LookupSettings> = Config.all({
  rdapBootstrapUrl: Config.string("RDAP_BOOTSTRAP_URL").pipe(Config.withDefault("https://data.iana.org/rdap/dns.json")),
  rdapBootstrapRefresh: Config.duration("RDAP_BOOTSTRAP_REFRESH").pipe(Config.withDefault(Duration.hours(24))),
  rdapMode: Config.literal("live", "sandbox")("RDAP_MODE").pipe(Config.withDefault("live" as const)),
  rdapTimeout: Config.duration("RDAP_TIMEOUT").pipe(Config.withDefault(Duration.seconds(8))),
  rdapMaxRedirects: Config.integer("RDAP_MAX_REDIRECTS").pipe(Config.withDefault(3)),
  rdapRetryAfterCap: Config.duration("RDAP_RETRY_AFTER_CAP").pipe(Config.withDefault(Duration.seconds(5))),
  whoisReferralServer: Config.string("WHOIS_REFERRAL_SERVER").pipe(Config.withDefault("whois.iana.org")),
  whoisPort: Config.integer("WHOIS_PORT").pipe(Config.withDefault(43)),
  whoisTimeout: Config.duration("WHOIS_TIMEOUT").pipe(Config.withDefault(Duration.seconds(8))),
  whoisMaxReferrals: Config.integer("WHOIS_MAX_REFERRALS").pipe(Config.withDefault(2)),
  whoisMaxBytes: Config.integer("WHOIS_MAX_BYTES").pipe(Config.withDefault(256 * 1024)),
  bearerWhoisCap: Config.integer("BEARER_WHOIS_CAP").pipe(Config.withDefault(100)),
  dnsResolver: Config.option(Config.string("DNS_RESOLVER")),
  jobRetention: Config.duration("JOB_RETENTION").pipe(Config.withDefault(Duration.days(7))),
  jobLease: Config.duration("JOB_LEASE").pipe(Config.withDefault(Duration.seconds(30))),
  jobConcurrency: Config.integer("JOB_CONCURRENCY").pipe(Config.withDefault(2)),
  toolCacheTtl: Config.duration("TOOL_CACHE_TTL").pipe(Config.withDefault(Duration.seconds(60)))
})

export interface AvailabilitySettings {
  /** TLDs tried for the label of a plain `label.tld` search (ALTERNATE_TLDS, comma list). */
  readonly alternateTlds: ReadonlyArray<string>
  /** Time limit of one upstream call (registrar check, RDAP) inside a check (AVAILABILITY_UPSTREAM_TIMEOUT). */
  readonly upstreamTimeout: Duration.Duration
  /** Calls in flight per upstream server (registrar, each RDAP server) per process (AVAILABILITY_UPSTREAM_CONCURRENCY). */
  readonly upstreamConcurrency: number
  /** Consecutive failures that open an upstream's circuit (AVAILABILITY_BREAKER_FAILURES). */
  readonly breakerFailures: number
  /** How long an open circuit fails fast before a trial call (AVAILABILITY_BREAKER_COOLDOWN). */
  readonly breakerCooldown: Duration.Duration
  /** Cache lifetime of an upstream answer per state (AVAILABILITY_TTL_<STATE>; 0 = not cached). */
  readonly ttl: {
    readonly available: Duration.Duration
    readonly premium: Duration.Duration
    readonly registered: Duration.Duration
    readonly unknown: Duration.Duration
  }
}

const DEFAULT_ALTERNATE_TLDS = ["com", "net", "org", "io", "co", "ai", "app", "dev", "xyz"]

const availabilityConfig: Config.Config<AvailabilitySettings> = Config.all({
  alternateTlds: Config.string("ALTERNATE_TLDS").pipe(
    Config.map((s) => s.split(",").map((t) => t.trim().toLowerCase().replace(/^\.+/, "")).filter((t) => t !== "")),
    Config.withDefault(DEFAULT_ALTERNATE_TLDS)
  ),
  upstreamTimeout: Config.duration("AVAILABILITY_UPSTREAM_TIMEOUT").pipe(Config.withDefault(Duration.seconds(3))),
  upstreamConcurrency: Config.integer("AVAILABILITY_UPSTREAM_CONCURRENCY").pipe(Config.withDefault(32)),
  breakerFailures: Config.integer("AVAILABILITY_BREAKER_FAILURES").pipe(Config.withDefault(5)),
  breakerCooldown: Config.duration("AVAILABILITY_BREAKER_COOLDOWN").pipe(Config.withDefault(Duration.seconds(30))),
  ttl: Config.all({
    available: Config.duration("AVAILABILITY_TTL_AVAILABLE").pipe(Config.withDefault(Duration.seconds(60))),
    premium: Config.duration("AVAILABILITY_TTL_PREMIUM").pipe(Config.withDefault(Duration.minutes(10))),
    registered: Config.duration("AVAILABILITY_TTL_REGISTERED").pipe(Config.withDefault(Duration.hours(6))),
    unknown: Config.duration("AVAILABILITY_TTL_UNKNOWN").pipe(Config.withDefault(Duration.zero))
  })
})

export interface MarketSettings {
  /** DEMO_LISTINGS: `auto` (default) seeds the demo catalogue only on the embedded database; `true`/`false` force it. */
  readonly demoListings: "auto" | "true" | "false"
  /** Seed the synthetic sandbox inventory (SANDBOX_INVENTORY, default true). */
  readonly sandboxInventory: boolean
  /** How long a listing page may reuse a `total` counted for the same filters (LISTINGS_COUNT_CACHE_TTL). */
  readonly countCacheTtl: Duration.Duration
}

const marketConfig: Config.Config<MarketSettings> = Config.all({
  demoListings: Config.literal("auto", "true", "false")("DEMO_LISTINGS").pipe(Config.withDefault("auto" as const)),
  sandboxInventory: Config.boolean("SANDBOX_INVENTORY").pipe(Config.withDefault(true)),
  countCacheTtl: Config.duration("LISTINGS_COUNT_CACHE_TTL").pipe(Config.withDefault(Duration.seconds(5)))
})

/** RATE_LIMIT_<OP>=n, e.g. RATE_LIMIT_PRICING_TLD=500. Read from the raw environment map. */
const rateLimitsFromEnv = (env: NodeJS.ProcessEnv): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(env)) {
    const m = /^RATE_LIMIT_([A-Z0-9_]+)$/.exec(k)
    if (m && v !== undefined && /^\d+$/.test(v)) out[m[1].toLowerCase()] = Number(v)
  }
  return out
}

/** Limits every request is held to (src/platform/RequestGuard.ts). */
export interface HttpSettings {
  /** Largest request body accepted (MAX_BODY_BYTES, default 1 MiB); larger bodies get 413. */
  readonly maxBodyBytes: number
  /** Longest a handler may run (REQUEST_TIMEOUT, default 30 s); then 503 request_timeout. */
  readonly requestTimeout: Duration.Duration
}

const httpConfig: Config.Config<HttpSettings> = Config.all({
  maxBodyBytes: Config.integer("MAX_BODY_BYTES").pipe(Config.withDefault(1024 * 1024)),
  requestTimeout: Config.duration("REQUEST_TIMEOUT").pipe(Config.withDefault(Duration.seconds(30)))
})

export const appConfig: Config.Config<AppConfigShape> = Config.all({
  nodeEnv: Config.string("NODE_ENV").pipe(Config.withDefault("development")),
  port: Config.integer("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  baseUrl: Config.option(Config.string("BASE_URL")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  serviceSecret: Config.option(Config.redacted("SERVICE_SECRET")),
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")),
  metricsToken: Config.option(Config.redacted("METRICS_TOKEN")),
  identity: identityConfig,
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
  shutdownDrainDelay: Config.duration("SHUTDOWN_DRAIN_DELAY").pipe(Config.withDefault(Duration.seconds(1))),
  database: databaseConfig,
  idempotencyLease: Config.duration("IDEMPOTENCY_LEASE").pipe(Config.withDefault(Duration.seconds(5))),
  catalogueCacheTtl: Config.duration("CATALOGUE_CACHE_TTL").pipe(Config.withDefault(Duration.seconds(5))),
  availability: availabilityConfig,
  market: marketConfig,
  lookup: lookupConfig,
  outboundAllowedPorts: portList("OUTBOUND_ALLOWED_PORTS", [80, 443]),
  partner: partnerConfig,
  http: httpConfig,
  ledger: ledgerConfig,
  brokerage: brokerageConfig,
  tracing: tracingConfig,
  referrals: referralConfig,
  checkout: checkoutConfig
}).pipe(
  Config.mapOrFail((c) => {
    const production = c.nodeEnv === "production"
    if (production && Option.isNone(c.serviceSecret)) {
      return Either.left(missing("SERVICE_SECRET is required when NODE_ENV=production"))
    }
    if (production) {
      for (const [name, secret] of [["SERVICE_SECRET", c.serviceSecret], ["ADMIN_TOKEN", c.adminToken]] as const) {
        const weak = Option.flatMap(secret, (s) => Option.fromNullable(weakSecret(Redacted.value(s))))
        if (Option.isSome(weak)) return Either.left(missing(`${name} ${weak.value} when NODE_ENV=production`))
      }
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
      metricsToken: c.metricsToken,
      identity: c.identity,
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
      shutdownDrainDelay: c.shutdownDrainDelay,
      database: c.database,
      idempotencyLease: c.idempotencyLease,
      catalogueCacheTtl: c.catalogueCacheTtl,
      availability: c.availability,
      market: c.market,
      lookup: c.lookup,
      outboundAllowedPorts: c.outboundAllowedPorts,
      partner: c.partner,
      http: c.http,
      ledger: c.ledger,
      brokerage: c.brokerage,
      tracing: c.tracing,
      referrals: c.referrals,
      checkout: c.checkout
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

/** Fails start-up with the configuration error (printed by the launcher), never a half-configured service. */
export const AppConfigLive: Layer.Layer<AppConfig, ConfigError.ConfigError> = Layer.effect(AppConfig, appConfig)
