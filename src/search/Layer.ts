/** The search capability as one layer: the search stream service and its handlers (search, keyed availability). */
import { Layer } from "effect"
import { KeyedAvailabilityHttpLive, SearchHttpLive } from "./Http.js"
import { Search } from "./Search.js"

export const SearchLive = Layer.mergeAll(SearchHttpLive, KeyedAvailabilityHttpLive).pipe(
  Layer.provideMerge(Search.Live)
)
