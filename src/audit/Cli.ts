/**
 * Reading the audit log:
 *
 *   audit list [--actor A] [--action X] [--since ISO] [--limit N] [--json]
 *
 * `--json` prints `[{id, at, actor, action, target, before, after, ip}]`, newest first (CONTRACT.md).
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { abort, json, print } from "../cli/Output.js"
import { AuditLog, type AuditRecord } from "./AuditLog.js"

const actor = Options.text("actor").pipe(Options.optional, Options.withDescription("Only this actor's actions"))
const action = Options.text("action").pipe(
  Options.optional,
  Options.withDescription("Only this action (order.clear, …)")
)
const since = Options.text("since").pipe(
  Options.optional,
  Options.withDescription("Only entries at or after this ISO time")
)
const limit = Options.integer("limit").pipe(
  Options.withDefault(100),
  Options.withDescription("At most this many (1–1000)")
)

const brief = (value: unknown) => {
  if (value === null || value === undefined) return "-"
  const text = JSON.stringify(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

const table = (rows: ReadonlyArray<AuditRecord>) =>
  rows.map((r) =>
    `${r.at}  ${r.actor}  ${r.action}  ${r.target ?? "-"}  ${brief(r.before)} -> ${brief(r.after)}${
      r.ip === null ? "" : `  from ${r.ip}`
    }`
  ).join("\n")

const list = Command.make("list", { json, actor, action, since, limit }, (o) =>
  Effect.gen(function*() {
    const sinceText = Option.getOrUndefined(o.since)
    const sinceDate = sinceText === undefined ? undefined : new Date(sinceText)
    if (sinceDate !== undefined && Number.isNaN(sinceDate.getTime())) {
      return yield* abort(`--since must be an ISO date or time, not "${sinceText}"`, "usage")
    }
    if (o.limit < 1 || o.limit > 1000) return yield* abort("--limit must be between 1 and 1000", "usage")
    const rows = yield* (yield* AuditLog).list({
      actor: Option.getOrUndefined(o.actor),
      action: Option.getOrUndefined(o.action),
      since: sinceDate,
      limit: o.limit
    })
    yield* print(o.json, rows, rows.length === 0 ? "No audit entries." : table(rows))
  })).pipe(Command.withDescription("Operator actions (admin API and CLI), newest first"))

export const auditCommand = Command.make("audit").pipe(
  Command.withDescription("The audit log: who did what, before and after, when, from where"),
  Command.withSubcommands([list])
)
