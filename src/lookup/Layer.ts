/**
 * The lookup capability as one layer: the RDAP and WHOIS clients, the lookup service, the handlers.
 * The clients open one span per call (never at layer build), so their spans are children of the
 * request that made the call.
 */
import { Layer } from "effect"
import { LookupHttpLive } from "./Http.js"
import { Lookups } from "./Lookups.js"
import { RdapClientLive } from "./Rdap.js"
import { WhoisClientLive } from "./Whois.js"

export const LookupLive = LookupHttpLive.pipe(
  Layer.provideMerge(Lookups.Live),
  Layer.provideMerge(Layer.mergeAll(RdapClientLive, WhoisClientLive))
)
