/**
 * The operator CLI's services: the server's capabilities (./Layers.ts) over its database, without
 * the HTTP listener, the workers and the seeding.
 *
 * Contract: only `src/cli.ts` imports this module, and only dynamically, once it knows a command
 * will run: `--help`, `--version` and usage errors never load the capabilities (two thirds of the
 * CLI's code; issue 36 item 8).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Layer, Logger, LogLevel } from "effect"
import { AppConfigLive } from "../platform/Config.js"
import { databaseLayer } from "../platform/db/Database.js"
import { runMigrations } from "../platform/db/Migrations.js"
import { CapabilitiesLive, SettingsLive } from "./Layers.js"

/**
 * The CLI's database: on an embedded DATA_DIR a running service holds, the CLI joins the
 * service's database socket rather than opening the directory a second time (src/platform/db/DataDirLock.ts).
 */
export const CliDatabaseReadyLive = Layer.effectDiscard(runMigrations()).pipe(
  Layer.provideMerge(databaseLayer({ join: true }))
)

export const CliEnv = CapabilitiesLive.pipe(
  Layer.provideMerge(CliDatabaseReadyLive),
  Layer.provideMerge(SettingsLive),
  Layer.provideMerge(AppConfigLive),
  Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning)),
  Layer.provideMerge(NodeContext.layer)
)
