/** The tools capability as one layer: the free tools service and its handlers (the job queue comes from src/app/Layers.ts). */
import { Layer } from "effect"
import { ToolsHttpLive } from "./Http.js"
import { Tools } from "./Tools.js"

export const ToolsLive = ToolsHttpLive.pipe(Layer.provideMerge(Tools.Live))

export { ToolWorkersLive } from "./Tools.js"
