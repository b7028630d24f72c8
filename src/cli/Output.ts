/**
 * Output helpers shared by every operator command: `--json` prints one JSON document (for
 * scripts), otherwise a short human summary. Failures go to stderr — as
 * `{"error":{"code","message"}}` under `--json` — and end the process with a distinct exit code:
 *
 *   0 success · 1 failure · 2 usage (bad arguments) · 3 not found · 4 conflict · 5 unavailable
 *   · 78 configuration refused (EX_CONFIG, src/platform/StartupRefusal.ts)
 */
import * as Options from "@effect/cli/Options"
import { Console, Effect } from "effect"
import { EX_DATABASE } from "../platform/db/DatabaseReach.js"
import { EX_CONFIG } from "../platform/StartupRefusal.js"

export const json = Options.boolean("json").pipe(Options.withDescription("Print the result as JSON"))

export const print = (asJson: boolean, value: unknown, human: string) =>
  asJson ? Console.log(JSON.stringify(value, null, 2)) : Console.log(human)

export const EXIT_CODES = {
  failure: 1,
  usage: 2,
  not_found: 3,
  conflict: 4,
  unavailable: EX_DATABASE,
  config: EX_CONFIG
} as const
export type FailureKind = keyof typeof EXIT_CODES

/** Whether this invocation asked for JSON (errors are then JSON too, whichever command failed). */
const wantsJson = () => process.argv.includes("--json")

export const errorText = (kind: FailureKind, message: string) =>
  wantsJson() ? JSON.stringify({ error: { code: kind, message } }) : message

/** Fails the command with a message on stderr and the kind's exit code. */
export const abort = (message: string, kind: FailureKind = "failure") =>
  Effect.zipRight(Console.error(errorText(kind, message)), Effect.fail(new CliFailure({ message, kind })))

export class CliFailure extends Error {
  readonly _tag = "CliFailure"
  constructor(readonly props: { readonly message: string; readonly kind: FailureKind }) {
    super(props.message)
  }
  get exitCode(): number {
    return EXIT_CODES[this.props.kind]
  }
}
