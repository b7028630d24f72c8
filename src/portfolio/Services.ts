/**
 * The portfolio capability as layers: services (for ServicesLive), handlers, workers. The hosted
 * checkout (CartCheckout) comes from the composition root; the cart seam's CartFulfilment is
 * ./Fulfilment.ts (given to the checkout by the composition root).
 */
import { Layer } from "effect"
import { Catalogue } from "../catalogue/Catalogue.js"
import { ToolJobsLive } from "../tools/Tools.js"
import { Bulk, BulkWorkersLive } from "./Bulk.js"
import { PortfolioConfig } from "./Config.js"
import { PortfolioHttpLive } from "./Http.js"
import { Portfolio } from "./Portfolio.js"
import { RegistrarLive } from "./Registrar.js"
import { PortfolioRepo } from "./Repo.js"

/** Needs RealtimeRegister, CartCheckout and the SqlClient. */
export const PortfolioServicesLive = Layer.mergeAll(Portfolio.Live, Bulk.Live).pipe(
  Layer.provideMerge(Layer.mergeAll(RegistrarLive, PortfolioRepo.Live)),
  Layer.provideMerge(PortfolioConfig.Live),
  Layer.provide([Catalogue.Live, ToolJobsLive])
)

export { BulkWorkersLive, PortfolioHttpLive }
