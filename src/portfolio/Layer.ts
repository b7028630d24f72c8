/**
 * The portfolio capability as one layer: portfolio, bulk operations, the registrar seam, the
 * handlers. The hosted checkout (`CartCheckout`), the catalogue and the job queue come from
 * src/app/Layers.ts; `CartFulfilmentLive` (the cart seam the checkout calls) is given to the
 * checkout by src/app/Layers.ts.
 */
import { Layer } from "effect"
import { Bulk } from "./Bulk.js"
import { PortfolioConfig } from "./Config.js"
import { PortfolioHttpLive } from "./Http.js"
import { Portfolio } from "./Portfolio.js"
import { RegistrarLive } from "./Registrar.js"
import { PortfolioRepo } from "./Repo.js"

export const PortfolioLive = PortfolioHttpLive.pipe(
  Layer.provideMerge(Layer.mergeAll(Portfolio.Live, Bulk.Live)),
  Layer.provideMerge(Layer.mergeAll(RegistrarLive, PortfolioRepo.Live)),
  Layer.provideMerge(PortfolioConfig.Live)
)

export { BulkWorkersLive } from "./Bulk.js"
export { CartFulfilmentLive } from "./Fulfilment.js"
