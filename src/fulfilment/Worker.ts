/** The delivery workers of this process (src/app/Workers.ts starts them; WORKERS=false does not). */
import { Effect, Layer } from "effect"
import { Fulfilment } from "./Fulfilment.js"

export const FulfilmentWorkersLive = Layer.scopedDiscard(Effect.flatMap(Fulfilment, (f) => f.work()))
