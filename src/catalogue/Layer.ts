/** The catalogue capability as one layer: TLD data and prices, the registrar client, the handlers. */
import { Layer } from "effect"
import { Catalogue } from "./Catalogue.js"
import { CatalogueHttpLive } from "./Http.js"
import { RealtimeRegisterLive } from "./RealtimeRegister.js"

export const CatalogueLive = CatalogueHttpLive.pipe(
  Layer.provideMerge(Catalogue.Live),
  Layer.provideMerge(RealtimeRegisterLive)
)
