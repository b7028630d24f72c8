/**
 * Operator CLI: `npm run cli -- <command> [--json]`. Every command talks to the same database
 * as the service (DATABASE_URL, or the embedded database in DATA_DIR: when a service is running
 * on that DATA_DIR, the CLI joins the database socket it serves, since one directory is never
 * opened by two processes; see src/platform/db/DataDirLock.ts).
 *
 * Each capability contributes its commands from its own `Cli.ts`.
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Context, Effect, Exit, Layer, Option } from "effect"
import type { CliEnv } from "./app/CliEnv.js"
import { CliActor, cliActorOf } from "./audit/Actor.js"
import { auditCommand } from "./audit/Cli.js"
import { operatorCommand } from "./audit/OperatorCli.js"
import { reservedCommand } from "./availability/Cli.js"
import { pricesCommand, tldsCommand } from "./catalogue/Cli.js"
import { helpText, stripAnsi } from "./cli/HelpText.js"
import { CliFailure, errorText, EXIT_CODES, json, print } from "./cli/Output.js"
import { orderDeliveryCommands } from "./fulfilment/Cli.js"
import { apikeyCommand, userCommand } from "./identity/Cli.js"
import { listingsCommand } from "./market/Cli.js"
import { offersCommand } from "./offers/Cli.js"
import { brokerageCommand } from "./partner/brokerage/Cli.js"
import { partnerCommand } from "./partner/Cli.js"
import { ledgerCommand, payoutsCommand, settleCommand, statementsCommand } from "./partner/ledger/Cli.js"
import { orderDescription, orderSubcommands } from "./partner/orders/Cli.js"
import { causeIsDatabaseOutage } from "./platform/db/DatabaseOutage.js"
import { DatabaseUnreachable } from "./platform/db/DatabaseReach.js"
import { runMigrations } from "./platform/db/Migrations.js"
import { configRefusal } from "./platform/StartupRefusal.js"
import { bulkCommand } from "./portfolio/Cli.js"

const migrate = Command.make("migrate", { json }, ({ json }) =>
  Effect.gen(function*() {
    const applied = yield* runMigrations()
    yield* print(json, { applied }, applied.length === 0 ? "Database is up to date." : `Applied: ${applied.join(", ")}`)
  })).pipe(Command.withDescription("Apply pending database migrations (the service also does this at start-up)"))

/** `order`: the Partner API's lifecycle commands and fulfilment's delivery commands. */
const orderCommand = Command.make("order").pipe(
  Command.withDescription(orderDescription),
  Command.withSubcommands([...orderSubcommands, ...orderDeliveryCommands])
)

const root = Command.make("marketplace").pipe(
  Command.withDescription("Domain marketplace operator CLI"),
  Command.withSubcommands([
    migrate,
    tldsCommand,
    pricesCommand,
    userCommand,
    apikeyCommand,
    listingsCommand,
    offersCommand,
    reservedCommand,
    partnerCommand,
    orderCommand,
    settleCommand,
    ledgerCommand,
    statementsCommand,
    payoutsCommand,
    brokerageCommand,
    bulkCommand,
    operatorCommand,
    auditCommand
  ])
)

const cli = Command.run(root, { name: "marketplace", version: "1.3.0" })

/**
 * The server's capabilities without the listener, the workers and the seeding (src/app/CliEnv.ts),
 * loaded when a command runs: help and usage errors never load them (issue 36 item 8: --help in
 * 1.5–1.9 s compiled, most of it loading services no help text needs).
 */
type Env = typeof CliEnv
const Env: Env = Layer.unwrapEffect(Effect.promise(() => import("./app/CliEnv.js")).pipe(Effect.map((m) => m.CliEnv)))

/** Usage errors (already explained by @effect/cli) exit 2; commands' own failures carry their code. */
const exitCodeOf = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return 0
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) return Cause.isInterruptedOnly(exit.cause) ? 130 : EXIT_CODES.failure
  const e = failure.value
  if (e instanceof CliFailure) return e.exitCode
  if (ValidationError.isValidationError(e)) return ValidationError.isHelpRequested(e) ? 0 : EXIT_CODES.usage
  return EXIT_CODES.failure
}

/** Failures no command explained (the database is unreachable, a bug): one line on stderr, then the exit code. */
const explain = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  const handled = Option.exists(failure, (e) => e instanceof CliFailure || ValidationError.isValidationError(e))
  if (handled || Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
  // A refused configuration (e.g. production on the sandbox providers): its one line, exit 78.
  const refusal = configRefusal(cause)
  if (Option.isSome(refusal)) {
    return Console.error(errorText("config", refusal.value)).pipe(
      Effect.zipRight(Effect.fail(new CliFailure({ message: refusal.value, kind: "config" })))
    )
  }
  const e = Option.getOrElse(failure, () => Cause.squash(cause))
  // A database it can never use (src/platform/db/DatabaseReach.ts): that sentence, exit 5.
  if (e instanceof DatabaseUnreachable) {
    return Console.error(errorText("unavailable", e.message)).pipe(
      Effect.zipRight(Effect.fail(new CliFailure({ message: e.message, kind: "unavailable" })))
    )
  }
  const kind = causeIsDatabaseOutage(cause) ? "unavailable" : "failure"
  const message = `${kind === "unavailable" ? "database unavailable: " : ""}${
    e instanceof Error ? e.message : String(e)
  }`
  return Console.error(errorText(kind, message)).pipe(Effect.zipRight(Effect.fail(new CliFailure({ message, kind }))))
}

/**
 * Help, version and completions answer without opening the database (no command handler runs
 * for them, so no service is needed: the empty context below is never read).
 */
const BUILT_INS = new Set(["--help", "-h", "--version", "--completions", "--wizard"])
// `--as NAME` names the audit log's actor for any command (src/audit/Actor.ts); the rest is the command.
const { argv, name: actorName } = cliActorOf(process.argv)
const args = argv.slice(2)
const needsServices = args.length > 0 && !args.some((a) => BUILT_INS.has(a))
const Services: Layer.Layer<Layer.Layer.Success<typeof Env>, Layer.Layer.Error<typeof Env>> = needsServices
  ? Env
  : Layer.succeedContext(Context.empty() as Context.Context<Layer.Layer.Success<typeof Env>>).pipe(
    Layer.merge(NodeContext.layer)
  )

/**
 * Help and usage errors as a reader wants them (src/cli/HelpText.ts): plain text unless stdout is
 * a terminal (and NO_COLOR is unset), at most 120 columns. Only help goes through `log` when no
 * command runs; `error` carries usage errors' help, and commands' own one-line errors unchanged.
 */
const colour = process.stdout.isTTY === true && process.env.NO_COLOR === undefined
const shape = (text: string) =>
  helpText(text, { width: Math.min(120, process.stdout.columns ?? 120), colour, program: "marketplace", words: args })
const helpConsole = (base: Console.Console): Console.Console => ({
  ...base,
  log: (...args) => base.log(...(needsServices ? args : [shape(args.join(" "))])),
  error: (...args) =>
    base.error(
      ...args.map((a) => typeof a !== "string" ? a : a.includes("\n") ? shape(a) : colour ? a : stripAnsi(a))
    )
})

Effect.consoleWith((base) => Effect.withConsole(cli(argv), helpConsole(base))).pipe(
  Effect.provideService(CliActor, { name: actorName }),
  Effect.provide(Services),
  Effect.catchAllCause(explain),
  NodeRuntime.runMain({ disableErrorReporting: true, teardown: (exit, onExit) => onExit(exitCodeOf(exit)) })
)
