import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { AppLive } from "./app/Server.js"

Layer.launch(AppLive()).pipe(NodeRuntime.runMain({ disablePrettyLogger: true }))
