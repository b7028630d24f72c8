/**
 * WHOIS/RDAP lookups: RDAP first, the WHOIS port-43 client as fallback, the answer stored.
 *
 *   Lookups.lookup(asciiDomain) → Found (stored lookup) | NoData (why each source had nothing)
 *
 * - RDAP found the name → its record (`raw_source: "RDAP"`).
 * - RDAP said 404, failed or has no server for the TLD → WHOIS; found → `raw_source: "WHOIS"`.
 * - Neither has data → `NoData`, with `registered: false` when a source said "no such domain"
 *   and none found it (the HTTP layer answers 404 either way).
 * - The lookup is stored (`lkp_…`); if storing fails the answer still goes out with `id: null`.
 */
import { Context, Effect, Layer } from "effect"
import { makeId } from "../platform/Ids.js"
import { RdapClient, RdapClientLive } from "./Rdap.js"
import type { LookupRecord } from "./Record.js"
import { LookupRepo } from "./Repo.js"
import { WhoisClient, WhoisClientLive } from "./Whois.js"

export interface StoredLookup {
  readonly id: string | null
  readonly domain: string
  readonly result: LookupRecord
  readonly created_at: string
}

export type LookupOutcome =
  | { readonly _tag: "Found"; readonly lookup: StoredLookup }
  | {
    readonly _tag: "NoData"
    /** True when a source answered "no such domain" (rather than failing). */
    readonly notRegistered: boolean
    readonly rdap: string
    readonly whois: string
  }

const make = Effect.gen(function*() {
  const rdap = yield* RdapClient
  const whois = yield* WhoisClient
  const repo = yield* LookupRepo

  const store = (domain: string, result: LookupRecord) =>
    Effect.gen(function*() {
      const now = new Date()
      const id = makeId("lkp")
      const stored = yield* repo.insert({ id, domain, result, createdAt: now }).pipe(
        Effect.as(true),
        Effect.catchAllDefect((e) =>
          Effect.logWarning("could not store a lookup").pipe(
            Effect.annotateLogs({ error: String(e) }),
            Effect.as(false)
          )
        )
      )
      return { id: stored ? id : null, domain, result, created_at: now.toISOString() } satisfies StoredLookup
    })

  const lookup = (asciiDomain: string): Effect.Effect<LookupOutcome> =>
    Effect.gen(function*() {
      const domain = asciiDomain.toLowerCase()
      const fromRdap = yield* Effect.either(rdap.lookupDomain(domain))
      if (fromRdap._tag === "Right" && fromRdap.right._tag === "Found") {
        return { _tag: "Found", lookup: yield* store(domain, { ...fromRdap.right.record, domain }) } as const
      }
      const rdapSays = fromRdap._tag === "Right"
        ? "no such domain (404)"
        : `${fromRdap.left.reason}: ${fromRdap.left.message}`
      const fromWhois = yield* Effect.either(whois.lookupDomain(domain))
      if (fromWhois._tag === "Right" && fromWhois.right._tag === "Found") {
        return { _tag: "Found", lookup: yield* store(domain, { ...fromWhois.right.record, domain }) } as const
      }
      const whoisSays = fromWhois._tag === "Right"
        ? "no such domain"
        : `${fromWhois.left.reason}: ${fromWhois.left.message}`
      return {
        _tag: "NoData",
        notRegistered: (fromRdap._tag === "Right") || (fromWhois._tag === "Right"),
        rdap: rdapSays,
        whois: whoisSays
      } as const
    }).pipe(Effect.withSpan("lookups.lookup", { attributes: { domain: asciiDomain } }))

  return { lookup }
})

export class Lookups extends Context.Tag("app/Lookups")<Lookups, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Lookups, make).pipe(Layer.provide(LookupRepo.Live))
}

/** RDAP client, WHOIS client and the lookup service, for ServicesLive. */
export const LookupServicesLive = Lookups.Live.pipe(
  Layer.provideMerge(WhoisClientLive),
  Layer.provideMerge(RdapClientLive)
)
