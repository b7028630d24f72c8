import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect, Layer } from "effect"
import { AppLive } from "./app/Server.js"

Layer.launch(AppLive()).pipe(
  // Another live process holds the embedded DATA_DIR: one clear line, exit code 1.
  Effect.tapError((e) =>
    (e as { _tag?: unknown })?._tag === "DataDirBusy" ? Console.error((e as { message: string }).message) : Effect.void
  ),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
