import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown } from "@effect/platform/Runtime"
import { Cause, Console, Effect, Exit, Layer, Option } from "effect"
import { AppLive } from "./app/Server.js"
import { DatabaseUnreachable, EX_DATABASE } from "./platform/DatabaseReach.js"
import { configRefusal, EX_CONFIG } from "./platform/StartupRefusal.js"

/** The database cannot be used (src/platform/DatabaseReach.ts): its one sentence, exit 5. */
const unreachable = (cause: Cause.Cause<unknown>) =>
  Option.filter(Cause.failureOption(cause), (e): e is DatabaseUnreachable => e instanceof DatabaseUnreachable)

Layer.launch(AppLive()).pipe(
  // Another live process holds the embedded DATA_DIR: one clear line, exit code 1.
  Effect.tapError((e) =>
    (e as { _tag?: unknown })?._tag === "DataDirBusy" ? Console.error((e as { message: string }).message) : Effect.void
  ),
  // A refused configuration is one plain line and exit 78 (src/platform/StartupRefusal.ts); a
  // database that cannot be used is one log line (JSON, like every other) and exit 5; any other
  // failure is logged, exit 1.
  Effect.tapErrorCause((cause) =>
    Option.match(configRefusal(cause), {
      onSome: Console.error,
      onNone: () =>
        Option.match(unreachable(cause), {
          onSome: (e) => Effect.logError(e.message),
          onNone: () => Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("the service stopped", cause)
        })
    })
  ),
  NodeRuntime.runMain({
    disablePrettyLogger: true,
    disableErrorReporting: true,
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Option.isSome(configRefusal(exit.cause))
        ? onExit(EX_CONFIG)
        : Exit.isFailure(exit) && Option.isSome(unreachable(exit.cause))
        ? onExit(EX_DATABASE)
        : defaultTeardown(exit, onExit)
  })
)
