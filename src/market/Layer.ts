/** The market capability as one layer: listings (owner of the `listings` table) and its handlers. */
import { Layer } from "effect"
import { MarketHttpLive } from "./Http.js"
import { Market } from "./Market.js"

export const MarketLive = MarketHttpLive.pipe(Layer.provideMerge(Market.Live))
