/**
 * Named operator tokens (src/admin/OperatorTokens.ts), managed from the CLI:
 *
 *   operator token create --name "Ana" [--json]   → the token, shown once
 *   operator token list [--json]
 *   operator token revoke ID [--json]
 *
 * The admin slice owns the tokens; this door lives beside the audit log because creating and
 * revoking an operator's access are themselves audited actions (admin imports no audit code).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { type OperatorToken, OperatorTokens } from "../admin/OperatorTokens.js"
import { abort, json, print } from "../cli/Output.js"
import { cliAction } from "./Actor.js"

const line = (t: OperatorToken) =>
  `${t.id}  ${t.name}  created ${t.created_at}  ${
    t.revoked_at === null ? `last used ${t.last_used_at ?? "never"}` : `revoked ${t.revoked_at}`
  }`

const create = Command.make("create", {
  json,
  name: Options.text("name").pipe(Options.withDescription("The person this token belongs to (shown in the audit log)"))
}, (o) =>
  Effect.gen(function*() {
    const name = o.name.trim()
    if (name === "" || name.length > 100) return yield* abort("--name must be 1–100 characters", "usage")
    const tokens = yield* OperatorTokens
    const created = yield* cliAction(
      { action: "operator_token.create", target: null, after: (c) => c.token },
      tokens.create(name)
    )
    yield* print(
      o.json,
      { ...created.token, token: created.secret },
      `${
        line(created.token)
      }\nToken (shown once; use as "Authorization: Bearer <token>" on /api/admin):\n${created.secret}`
    )
  })).pipe(Command.withDescription("Create a named operator token for /api/admin; the token is shown once"))

const list = Command.make("list", { json }, (o) =>
  Effect.gen(function*() {
    const rows = yield* (yield* OperatorTokens).list
    yield* print(o.json, rows, rows.length === 0 ? "No operator tokens." : rows.map(line).join("\n"))
  })).pipe(Command.withDescription("Operator tokens, newest first (never their secrets)"))

const revoke = Command.make("revoke", { json, id: Args.text({ name: "ID" }) }, (o) =>
  Effect.gen(function*() {
    const tokens = yield* OperatorTokens
    // An unknown id fails inside the action, so nothing is recorded for it.
    const revoked = yield* cliAction(
      { action: "operator_token.revoke", target: o.id },
      Effect.flatMap(
        tokens.revoke(o.id),
        Option.match({
          onNone: () => abort(`No operator token ${o.id}`, "not_found"),
          onSome: Effect.succeed
        })
      )
    )
    yield* print(o.json, revoked, line(revoked))
  })).pipe(Command.withDescription("Revoke an operator token: /api/admin refuses it from now on (401)"))

export const operatorCommand = Command.make("operator").pipe(
  Command.withDescription("Operators' identities for /api/admin"),
  Command.withSubcommands([
    Command.make("token").pipe(
      Command.withDescription("Named operator tokens"),
      Command.withSubcommands([create, list, revoke])
    )
  ])
)
