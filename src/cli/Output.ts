/**
 * Output helpers shared by every operator command: `--json` prints one JSON document (for
 * scripts), otherwise a short human summary.
 */
import { Options } from "@effect/cli"
import { Console, Effect } from "effect"

export const json = Options.boolean("json").pipe(Options.withDescription("Print the result as JSON"))

export const print = (asJson: boolean, value: unknown, human: string) =>
  asJson ? Console.log(JSON.stringify(value, null, 2)) : Console.log(human)

/** Fails the command (exit code 1) with a message on stderr. */
export const abort = (message: string) => Effect.zipRight(Console.error(message), Effect.fail(new CliFailure({ message })))

export class CliFailure extends Error {
  constructor(readonly props: { readonly message: string }) {
    super(props.message)
  }
}
