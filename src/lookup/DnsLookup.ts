/**
 * dns-lookup: A, AAAA, MX, NS, TXT, CNAME and SOA records of a name, asked of the configured
 * resolver (`DNS_RESOLVER`, `host:port`) or the system's resolvers.
 */
import { Effect, Option } from "effect"
import * as Dns from "node:dns"

export const RECORD_TYPES = ["A", "AAAA", "MX", "NS", "TXT", "CNAME", "SOA"] as const
export type RecordType = (typeof RECORD_TYPES)[number]

export interface DnsLookupResult {
  readonly domain: string
  readonly resolver: string
  readonly records: {
    A?: ReadonlyArray<{ address: string; ttl: number }>
    AAAA?: ReadonlyArray<{ address: string; ttl: number }>
    MX?: ReadonlyArray<{ exchange: string; priority: number }>
    NS?: ReadonlyArray<string>
    TXT?: ReadonlyArray<string>
    CNAME?: ReadonlyArray<string>
    SOA?: Dns.SoaRecord | null
  }
  /** The name does not exist (NXDOMAIN). */
  readonly nxdomain: boolean
  /** Per type: why it could not be answered (timeouts, refusals); absent types answered. */
  readonly errors: Readonly<Record<string, string>>
}

const NO_DATA = new Set([Dns.NODATA, Dns.NOTFOUND, "ENODATA", "ENOTFOUND"])

export const dnsLookup = (
  resolverAddress: Option.Option<string>,
  domain: string,
  types: ReadonlyArray<RecordType>,
  timeoutMs = 3000
): Effect.Effect<DnsLookupResult> =>
  Effect.gen(function*() {
    const resolver = new Dns.promises.Resolver({ timeout: timeoutMs, tries: 1 })
    if (Option.isSome(resolverAddress)) resolver.setServers([resolverAddress.value])
    const records: Record<string, unknown> = {}
    const errors: Record<string, string> = {}
    let nxdomain = false
    const ask = async (type: RecordType): Promise<unknown> => {
      switch (type) {
        case "A":
          return (await resolver.resolve4(domain, { ttl: true })).map((r) => ({ address: r.address, ttl: r.ttl }))
        case "AAAA":
          return (await resolver.resolve6(domain, { ttl: true })).map((r) => ({ address: r.address, ttl: r.ttl }))
        case "MX":
          return (await resolver.resolveMx(domain)).sort((a, b) => a.priority - b.priority).map((r) => ({
            exchange: r.exchange,
            priority: r.priority
          }))
        case "NS":
          return (await resolver.resolveNs(domain)).sort()
        case "TXT":
          return (await resolver.resolveTxt(domain)).map((chunks) => chunks.join(""))
        case "CNAME":
          return await resolver.resolveCname(domain)
        case "SOA":
          return await resolver.resolveSoa(domain)
      }
    }
    yield* Effect.forEach(types, (type) =>
      Effect.promise(() =>
        ask(type).then(
          (value) => {
            records[type] = value
          },
          (e: NodeJS.ErrnoException) => {
            const code = String(e?.code ?? "EUNKNOWN")
            if (code === Dns.NOTFOUND || code === "ENOTFOUND") nxdomain = true
            if (NO_DATA.has(code)) records[type] = type === "SOA" ? null : []
            else errors[type] = code
          }
        )
      ), { concurrency: "unbounded", discard: true })
    return {
      domain,
      resolver: Option.getOrElse(resolverAddress, () => "system"),
      records: records as DnsLookupResult["records"],
      nxdomain,
      errors
    }
  })
