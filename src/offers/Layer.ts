/** The offers capability as one layer: the service (owner of `market_offers`) and its handler. */
import { Layer } from "effect"
import { OffersHttpLive } from "./Http.js"
import { Offers } from "./Offers.js"

export const OffersLive = OffersHttpLive.pipe(Layer.provideMerge(Offers.Live))
