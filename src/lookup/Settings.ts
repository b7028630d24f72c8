/**
 * WHOIS/RDAP/DNS lookups, the free tools and their jobs (docs/lookup.md, docs/tools.md).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | RDAP_BOOTSTRAP_URL | https://data.iana.org/rdap/dns.json | IANA-format `dns.json`; empty: bundled snapshot only |
 * | RDAP_BOOTSTRAP_REFRESH | 24 hours | age after which a process re-fetches the bootstrap file |
 * | RDAP_MODE | live | `live` talks to RDAP servers; `sandbox` answers every lookup at once with an error |
 * | RDAP_TIMEOUT, RDAP_MAX_REDIRECTS, RDAP_RETRY_AFTER_CAP | 8 s, 3, 5 s | per RDAP request |
 * | WHOIS_REFERRAL_SERVER, WHOIS_PORT, WHOIS_TIMEOUT, WHOIS_MAX_REFERRALS, WHOIS_MAX_BYTES | whois.iana.org, 43, 8 s, 2, 256 KiB | WHOIS client |
 * | BEARER_WHOIS_CAP | 100 | daily WHOIS lookups for a bearer-token caller |
 * | DNS_RESOLVER | — | `host:port` of the resolver; unset: the system's |
 * | JOB_RETENTION, JOB_LEASE, JOB_CONCURRENCY | 7 days, 30 s, 2 | tool jobs |
 * | TOOL_CACHE_TTL | 60 seconds | identical inline tool calls answered from cache |
 */
import { Config, Context, Duration, Layer, type Option } from "effect"
import { durationSetting } from "../platform/DurationSetting.js"

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

export const lookupConfig: Config.Config<LookupSettings> = Config.all({
  rdapBootstrapUrl: Config.string("RDAP_BOOTSTRAP_URL").pipe(Config.withDefault("https://data.iana.org/rdap/dns.json")),
  rdapBootstrapRefresh: durationSetting("RDAP_BOOTSTRAP_REFRESH", Duration.hours(24)),
  rdapMode: Config.literal("live", "sandbox")("RDAP_MODE").pipe(Config.withDefault("live" as const)),
  rdapTimeout: durationSetting("RDAP_TIMEOUT", Duration.seconds(8)),
  rdapMaxRedirects: Config.integer("RDAP_MAX_REDIRECTS").pipe(Config.withDefault(3)),
  rdapRetryAfterCap: durationSetting("RDAP_RETRY_AFTER_CAP", Duration.seconds(5)),
  whoisReferralServer: Config.string("WHOIS_REFERRAL_SERVER").pipe(Config.withDefault("whois.iana.org")),
  whoisPort: Config.integer("WHOIS_PORT").pipe(Config.withDefault(43)),
  whoisTimeout: durationSetting("WHOIS_TIMEOUT", Duration.seconds(8)),
  whoisMaxReferrals: Config.integer("WHOIS_MAX_REFERRALS").pipe(Config.withDefault(2)),
  whoisMaxBytes: Config.integer("WHOIS_MAX_BYTES").pipe(Config.withDefault(256 * 1024)),
  bearerWhoisCap: Config.integer("BEARER_WHOIS_CAP").pipe(Config.withDefault(100)),
  dnsResolver: Config.option(Config.string("DNS_RESOLVER")),
  jobRetention: durationSetting("JOB_RETENTION", Duration.days(7)),
  jobLease: durationSetting("JOB_LEASE", Duration.seconds(30)),
  jobConcurrency: Config.integer("JOB_CONCURRENCY").pipe(Config.withDefault(2)),
  toolCacheTtl: durationSetting("TOOL_CACHE_TTL", Duration.seconds(60))
})

export class LookupConfig extends Context.Tag("lookup/LookupConfig")<LookupConfig, LookupSettings>() {
  static readonly Live = Layer.effect(LookupConfig, lookupConfig)
}
