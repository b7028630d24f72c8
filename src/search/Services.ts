/**
 * The availability, marketplace and search layers, for the composition root
 * (src/app/Server.ts). Their dependencies on shared services (catalogue, RDAP client, registrar,
 * service secret) are the same memoised layers the root builds.
 */
import { Effect, Layer, Schedule } from "effect"
import { AvailabilityEngine } from "../availability/Availability.js"
import { Catalogue } from "../catalogue/Catalogue.js"
import { RdapClientLive } from "../lookup/Rdap.js"
import { WhoisClientLive } from "../lookup/Whois.js"
import { MarketHttpLive } from "../market/Http.js"
import { Market } from "../market/Market.js"
import { ServiceSecretLive } from "../platform/ServiceSecret.js"
import { KeyedAvailabilityHttpLive, SearchHttpLive } from "./Http.js"
import { Search } from "./Search.js"

export const SearchServicesLive = Search.Live.pipe(
  Layer.provideMerge(AvailabilityEngine.Live),
  Layer.provideMerge(Market.Live),
  Layer.provide([Catalogue.Live, RdapClientLive, WhoisClientLive, ServiceSecretLive])
)

export const SearchHandlersLive = Layer.mergeAll(SearchHttpLive, KeyedAvailabilityHttpLive, MarketHttpLive)

/** Start-up seeding of the marketplace: demo catalogue (or its removal) and the sandbox inventory. */
export const marketSeed = Effect.flatMap(Market, (m) => m.seed)

/** Drops expired availability answers; any replica may run it. */
export const AvailabilityJanitorLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const engine = yield* AvailabilityEngine
    yield* engine.purgeExpired.pipe(
      Effect.catchAllDefect((e) => Effect.logWarning("availability cache cleanup failed", e)),
      Effect.repeat(Schedule.spaced("10 minutes")),
      Effect.forkScoped
    )
  })
)
