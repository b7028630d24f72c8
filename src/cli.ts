/**
 * Operator CLI: `npm run cli -- <command> [--json]`. Every command talks to the same database
 * as the service (DATABASE_URL, or the embedded database in DATA_DIR — stop the service first
 * when using the embedded database, it allows one process at a time).
 *
 * Each capability contributes its commands from its own `Cli.ts`.
 */
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { DatabaseReadyLive, ServicesLive } from "./app/Server.js"
import { pricesCommand, tldsCommand } from "./catalogue/Cli.js"
import { apikeyCommand, userCommand } from "./identity/Cli.js"
import { listingsCommand } from "./market/Cli.js"
import { reservedCommand } from "./availability/Cli.js"
import { json, print } from "./cli/Output.js"
import { AppConfigLive } from "./platform/Config.js"
import { runMigrations } from "./platform/Migrations.js"
import { orderCommand, partnerCommand } from "./partner/Cli.js"

const migrate = Command.make("migrate", { json }, ({ json }) =>
  Effect.gen(function*() {
    const applied = yield* runMigrations()
    yield* print(json, { applied }, applied.length === 0 ? "Database is up to date." : `Applied: ${applied.join(", ")}`)
  })).pipe(Command.withDescription("Apply pending database migrations (the service also does this at start-up)"))

const root = Command.make("marketplace").pipe(
  Command.withDescription("Domain marketplace operator CLI"),
  Command.withSubcommands([migrate, tldsCommand, pricesCommand, userCommand, apikeyCommand, listingsCommand, reservedCommand, partnerCommand, orderCommand])
)

const cli = Command.run(root, { name: "marketplace", version: "1.3.0" })

const Env = ServicesLive.pipe(
  Layer.provideMerge(DatabaseReadyLive),
  Layer.provideMerge(AppConfigLive),
  Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning)),
  Layer.provideMerge(NodeContext.layer)
)

cli(process.argv).pipe(Effect.provide(Env), NodeRuntime.runMain({ disableErrorReporting: true }))
