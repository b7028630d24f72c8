/**
 * The market capability as one layer: listings (owner of the `listings` table), its handlers, and
 * `ListingReads`, the reads of listings other slices need (partner inventory, tools).
 */
import { Layer } from "effect"
import { MarketHttpLive } from "./Http.js"
import { ListingReads } from "./ListingReads.js"
import { Market } from "./Market.js"

export const MarketLive = MarketHttpLive.pipe(Layer.provideMerge(Layer.mergeAll(Market.Live, ListingReads.Live)))
