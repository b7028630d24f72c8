import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown } from "@effect/platform/Runtime"
import { Cause, Effect, Exit, Layer, Logger, Option } from "effect"
import { AppLive } from "./app/Server.js"
import { DatabaseUnreachable, EX_DATABASE } from "./platform/db/DatabaseReach.js"
import { configRefusal, EX_CONFIG } from "./platform/StartupRefusal.js"

/** The database cannot be used (src/platform/db/DatabaseReach.ts): its one sentence, exit 5. */
const unreachable = (cause: Cause.Cause<unknown>) =>
  Option.filter(Cause.failureOption(cause), (e): e is DatabaseUnreachable => e instanceof DatabaseUnreachable)

/**
 * What ends start-up is logged in the service's one log format (JSON unless LOG_FORMAT=pretty),
 * like every other line, even when the configuration itself could not be read.
 */
const StartupLogger = process.env.LOG_FORMAT === "pretty" ? Logger.pretty : Logger.json

Layer.launch(AppLive()).pipe(
  // Another live process holds the embedded DATA_DIR: one record naming it, exit code 1.
  Effect.tapError((e) =>
    (e as { _tag?: unknown })?._tag === "DataDirBusy"
      ? Effect.logError((e as { message: string }).message)
      : Effect.void
  ),
  // A refused configuration is one record and exit 78 (src/platform/StartupRefusal.ts); a
  // database that cannot be used is one record and exit 5; any other failure is logged, exit 1.
  Effect.tapErrorCause((cause) =>
    Option.match(configRefusal(cause), {
      onSome: (line) => Effect.logError(line),
      onNone: () =>
        Option.match(unreachable(cause), {
          onSome: (e) => Effect.logError(e.message),
          onNone: () => Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("the service stopped", cause)
        })
    })
  ),
  Effect.provide(StartupLogger),
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
