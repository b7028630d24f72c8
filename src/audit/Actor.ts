/**
 * The doors operators act through, each naming its actor for `AuditLog.audited`: `operatorAction`
 * for /api/admin handlers (the person the admin middleware authenticated, and the caller's IP),
 * `cliAction` for operator CLI commands (`cli:<OS user>`, or `--as NAME`; no IP). The consoles
 * record through `AuditLog.audited` themselves, since they know the signed-in account:
 * src/ops/Door.ts `act` (the operator's e-mail, once identity confirms the role inside the action)
 * and src/console/Http.ts (a partner member's e-mail; the partner services check the role).
 * (The audit slice imports no identity code: identity's CLI records through `cliAction`.)
 */
import { Context, Effect } from "effect"
import * as Os from "node:os"
import { CurrentOperator } from "../admin/Operator.js"
import { type AuditAction, AuditLog } from "./AuditLog.js"

/** The CLI's actor, provided once by src/cli.ts. */
export class CliActor extends Context.Tag("CliActor")<CliActor, { readonly name: string }>() {}

const osUser = (): string => {
  try {
    return Os.userInfo().username
  } catch {
    return process.env.USER ?? "unknown"
  }
}

/**
 * `--as NAME` (or `--as=NAME`) taken out of the CLI's arguments, wherever it stands, so every
 * command accepts it without declaring it; without it the actor is `cli:<OS user>`.
 */
export const cliActorOf = (argv: ReadonlyArray<string>): { argv: Array<string>; name: string } => {
  const rest: Array<string> = []
  let name: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--as" && i + 1 < argv.length) name = argv[++i]
    else if (a.startsWith("--as=")) name = a.slice(5)
    else rest.push(a)
  }
  return { argv: rest, name: name !== undefined && name.trim() !== "" ? name.trim() : `cli:${osUser()}` }
}

export const operatorAction = <A, E, R, E2 = never, R2 = never>(
  what: AuditAction<A, E2, R2>,
  effect: Effect.Effect<A, E, R>
) =>
  Effect.flatMap(
    Effect.all([CurrentOperator, AuditLog]),
    ([operator, audit]) => audit.audited({ actor: operator.name, ip: operator.ip }, what, effect)
  )

export const cliAction = <A, E, R, E2 = never, R2 = never>(
  what: AuditAction<A, E2, R2>,
  effect: Effect.Effect<A, E, R>
) =>
  Effect.flatMap(
    Effect.all([CliActor, AuditLog]),
    ([actor, audit]) => audit.audited({ actor: actor.name, ip: null }, what, effect)
  )
