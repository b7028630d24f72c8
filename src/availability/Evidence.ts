/**
 * What the upstreams say about a name: the registrar's check and RDAP (with, for a TLD without
 * RDAP, its WHOIS server and then DNS), each under its guard (time limit, bounded concurrency,
 * circuit breaker), combined into one outcome by src/domain/Availability.ts.
 *
 * The contract: a slow or failing upstream is evidence of nothing (`Failed` with a reason), never
 * a hang and never `available`; only the two upstreams run concurrently.
 */
import { type Context, Effect, Option } from "effect"
import type { RealtimeRegister, RtrDomainCheck, RtrError } from "../catalogue/RealtimeRegister.js"
import {
  combineEvidence,
  type RdapEvidence,
  type RegistrarEvidence,
  type WhoisSummary
} from "../domain/Availability.js"
import type { DomainName } from "../domain/DomainName.js"
import { dnsLookup } from "../lookup/DnsLookup.js"
import type { RdapClient, RdapError, RdapLookup } from "../lookup/Rdap.js"
import type { WhoisClient, WhoisError } from "../lookup/Whois.js"
import { type Guard, isRejected, type Rejected } from "./Guard.js"

/** The upstream clients, their guards and what the evidence needs of the settings. */
export interface EvidenceSources {
  readonly rtr: Context.Tag.Service<typeof RealtimeRegister>
  readonly rdap: Context.Tag.Service<typeof RdapClient>
  readonly whois: Context.Tag.Service<typeof WhoisClient>
  readonly registrarGuard: Guard
  readonly rdapGuard: Guard
  readonly whoisGuard: Guard
  readonly dnsGuard: Guard
  readonly markupPercent: number
  readonly dnsResolver: Option.Option<string>
  readonly upstreamTimeoutMs: number
  /** The TLD's standard registration price (null: none known). */
  readonly standardPrice: (name: DomainName) => Effect.Effect<number | null>
}

const whoisOf = (found: Extract<RdapLookup, { _tag: "Found" }>): WhoisSummary => ({
  registrar: found.record.registrar || null,
  created: found.record.creation_date || null,
  expires: found.record.expiration_date || null,
  status: found.statuses
})

const describeRtr = (e: RtrError | Rejected) => isRejected(e) ? e.message : `${e.reason}: ${e.message}`
const describeRdap = (e: RdapError | Rejected) => isRejected(e) ? e.message : `${e.reason}: ${e.message}`
const describeWhois = (e: WhoisError | Rejected) => isRejected(e) ? e.message : `${e.reason}: ${e.message}`

const registrarEvidence = (src: EvidenceSources, name: DomainName): Effect.Effect<RegistrarEvidence> => {
  if (src.rtr.mode === "sandbox") return Effect.succeed({ _tag: "NotConfigured" })
  return src.registrarGuard.run("registrar", src.rtr.checkDomain(name.registrable), (e) => e.reason !== "not_found")
    .pipe(
      Effect.map((c: RtrDomainCheck): RegistrarEvidence => {
        const usd = c.currency === undefined || c.currency.toUpperCase() === "USD"
        const markup = 1 + src.markupPercent / 100
        return {
          _tag: "Answered",
          available: c.available,
          premium: c.premium === true,
          priceCents: c.price !== undefined && usd ? Math.round(c.price * markup) : null,
          reason: c.reason ?? null
        }
      }),
      Effect.catchAll((e) => Effect.succeed<RegistrarEvidence>({ _tag: "Failed", reason: describeRtr(e) }))
    )
}

/**
 * A TLD without RDAP: its WHOIS server ("no match" is as authoritative as an RDAP 404), then DNS
 * (NS records prove a registration; their absence proves nothing: a registered name need not
 * be delegated). NoService with every source's reason when none can say.
 */
const withoutRdap = (src: EvidenceSources, name: DomainName, noRdap: string): Effect.Effect<RdapEvidence> =>
  Effect.gen(function*() {
    const fromWhois = yield* Effect.either(
      src.whoisGuard.run(name.suffix, src.whois.lookupDomain(name.registrable), (e) => e.reason !== "no_server")
    )
    if (fromWhois._tag === "Right") {
      const answer = fromWhois.right
      if (answer._tag === "NotFound") return { _tag: "Unregistered", via: "whois" } as const
      return {
        _tag: "Registered",
        via: "whois",
        whois: {
          registrar: answer.record.registrar || null,
          created: answer.record.creation_date || null,
          expires: answer.record.expiration_date || null,
          status: answer.statuses
        }
      } as const
    }
    const whoisSays = describeWhois(fromWhois.left)
    const fromDns = yield* Effect.either(
      src.dnsGuard.run(
        "dns",
        dnsLookup(src.dnsResolver, name.registrable, ["NS"], src.upstreamTimeoutMs)
          .pipe(
            Effect.flatMap((r) => r.errors.NS !== undefined ? Effect.fail(`DNS ${r.errors.NS}`) : Effect.succeed(r))
          )
      )
    )
    if (fromDns._tag === "Right" && (fromDns.right.records.NS?.length ?? 0) > 0) {
      return { _tag: "Registered", via: "dns", whois: null } as const
    }
    const dnsSays = fromDns._tag === "Left"
      ? (typeof fromDns.left === "string" ? fromDns.left : fromDns.left.message)
      : fromDns.right.nxdomain
      ? "no delegation (NXDOMAIN), which does not prove the name is free"
      : "no NS records, which does not prove the name is free"
    return { _tag: "NoService", reason: `${noRdap}; whois: ${whoisSays}; dns: ${dnsSays}` } as const
  })

const rdapEvidence = (src: EvidenceSources, name: DomainName): Effect.Effect<RdapEvidence> =>
  Effect.gen(function*() {
    const server = yield* src.rdap.serverFor(name.registrable)
    if (Option.isNone(server) && src.rdap.mode === "live") {
      return yield* withoutRdap(src, name, `no RDAP service is registered for .${name.suffix}`)
    }
    const key = Option.getOrElse(server, () => name.suffix)
    return yield* src.rdapGuard.run(
      key,
      src.rdap.lookupDomain(name.registrable, { followRelated: false }),
      (e) => e.reason !== "unsupported_tld"
    ).pipe(
      Effect.map((r): RdapEvidence =>
        r._tag === "Found" ? { _tag: "Registered", whois: whoisOf(r) } : { _tag: "Unregistered" }
      ),
      Effect.catchAll((e): Effect.Effect<RdapEvidence> =>
        !isRejected(e) && e.reason === "unsupported_tld"
          ? src.rdap.mode === "live"
            ? withoutRdap(src, name, e.message)
            : Effect.succeed({ _tag: "NoService", reason: e.message })
          : Effect.succeed({ _tag: "Failed", reason: describeRdap(e) })
      )
    )
  })

const notConfigured: RegistrarEvidence = { _tag: "NotConfigured" }

export const upstream = (src: EvidenceSources, name: DomainName) =>
  Effect.gen(function*() {
    // The price comes from an in-process cache; only the two upstreams run concurrently (and
    // without a registrar there is nothing to run beside RDAP: no extra fibers per name).
    const price = yield* src.standardPrice(name)
    const [registrar, rdapAnswer] = src.rtr.mode === "sandbox"
      ? [notConfigured, yield* rdapEvidence(src, name)] as const
      : yield* Effect.all([registrarEvidence(src, name), rdapEvidence(src, name)], { concurrency: 2 })
    return combineEvidence(registrar, rdapAnswer, price)
  })
