import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown } from "@effect/platform/Runtime"
import { Cause, Console, Effect, Exit, Layer, Option } from "effect"
import { AppLive } from "./app/Server.js"
import { configRefusal, EX_CONFIG } from "./platform/StartupRefusal.js"

Layer.launch(AppLive()).pipe(
  // Another live process holds the embedded DATA_DIR: one clear line, exit code 1.
  Effect.tapError((e) =>
    (e as { _tag?: unknown })?._tag === "DataDirBusy" ? Console.error((e as { message: string }).message) : Effect.void
  ),
  // A refused configuration is one plain line and exit 78 (src/platform/StartupRefusal.ts); any
  // other failure is logged, exit 1.
  Effect.tapErrorCause((cause) =>
    Option.match(configRefusal(cause), {
      onSome: Console.error,
      onNone: () => Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError(cause)
    })
  ),
  NodeRuntime.runMain({
    disablePrettyLogger: true,
    disableErrorReporting: true,
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Option.isSome(configRefusal(exit.cause))
        ? onExit(EX_CONFIG)
        : defaultTeardown(exit, onExit)
  })
)
