/**
 * Operator commands of the portfolio:
 *
 *   bulk show BULK_ID [--follow] [--json]
 *
 * `--follow` prints one progress line per second until the operation is done
 * (`bulk_… lock running 340/1000 succeeded 338 failed 2`), then its failures.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Console, Duration, Effect } from "effect"
import { abort, json, print } from "../cli/Output.js"
import type { BulkStatus } from "./Api.js"
import { Bulk } from "./Bulk.js"

const id = Args.text({ name: "BULK_ID" }).pipe(Args.withDescription("The bulk operation id (bulk_…)"))
const follow = Options.boolean("follow").pipe(
  Options.withDescription("Print a progress line every second until it is done")
)

export const progressLine = (s: BulkStatus) =>
  `${s.bulkOpId} ${s.op} ${s.status} ${s.succeeded + s.failed}/${s.total} succeeded ${s.succeeded} failed ${s.failed}`

const failuresText = (s: BulkStatus) =>
  s.items.filter((i) => i.status === "failed").map((i) => `  ${i.domain}: ${i.error ?? "failed"}`).join("\n")

const bulkShow = Command.make("show", { id, follow, json }, ({ follow, id, json }) =>
  Effect.gen(function*() {
    const bulk = yield* Bulk
    const load = bulk.status(id).pipe(Effect.catchTag("BulkOpNotFound", (e) => abort(e.message, "not_found")))
    let current = yield* load
    if (follow) {
      while (current.status !== "done") {
        if (!json) yield* Console.log(progressLine(current))
        yield* Effect.sleep(Duration.seconds(1))
        current = yield* load
      }
    }
    const failures = failuresText(current)
    yield* print(json, current, progressLine(current) + (failures ? `\nFailed:\n${failures}` : ""))
  })).pipe(
    Command.withDescription("Show a bulk operation's progress (GET /api/domains/bulk/{id}); --follow until done")
  )

export const bulkCommand = Command.make("bulk").pipe(
  Command.withDescription("Bulk domain operations"),
  Command.withSubcommands([bulkShow])
)
