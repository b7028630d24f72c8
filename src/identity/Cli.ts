/**
 * Operator commands of identity:
 *
 *   user create --email E --password-stdin [--domains a.com,b.net] [--role member|operator] [--json]
 *                                          (the password on stdin; operators use the console at /ops)
 *   user create --email E --password P …   (visible in `ps` and shell history: prefer --password-stdin)
 *   user add-domains --email E --domains a.com,b.net [--json]
 *   apikey create --name N [--json]      → {key, secret} (the secret is shown once)
 *   apikey list [--json]
 *   apikey revoke KEY [--json]
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { cliAction } from "../audit/Actor.js"
import { abort, json, print } from "../cli/Output.js"
import { ACCOUNT_ROLES, Accounts } from "./accounts/Accounts.js"
import { ApiKeyStore } from "./apikeys/ApiKeyStore.js"

const email = Options.text("email").pipe(Options.withDescription("The user's e-mail address (sign-in name)"))
const password = Options.text("password").pipe(
  Options.withDescription(
    `The user's password (at least 8 characters); visible in ps and shell history, prefer --password-stdin`
  ),
  Options.optional
)
const passwordStdin = Options.boolean("password-stdin").pipe(
  Options.withDescription(
    "Read the password from stdin (its first line), e.g. printf '%s' \"$PW\" | … --password-stdin"
  )
)

/** The first line of stdin (a trailing newline is not part of the password). */
const readStdinLine = Effect.async<string>((resume) => {
  const chunks: Array<Buffer> = []
  const stdin = process.stdin
  stdin.on("data", (c: Buffer) => chunks.push(c))
  stdin.once("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "")))
  stdin.once("error", () => resume(Effect.succeed("")))
  stdin.resume()
})
const domains = Options.text("domains").pipe(
  Options.withDescription("Comma-separated domains the user owns (bulk operations act on these only)"),
  Options.optional
)

const role = Options.choice("role", ACCOUNT_ROLES).pipe(
  Options.withDefault("member" as const),
  Options.withDescription("member (default), or operator: may use the operator console at /ops")
)

const userCreate = Command.make(
  "create",
  { email, password, passwordStdin, domains, role, json },
  ({ domains, email, json, password: passwordOption, passwordStdin, role }) =>
    Effect.gen(function*() {
      if (Option.isSome(passwordOption) === passwordStdin) {
        return yield* abort("Give the password with exactly one of --password-stdin or --password", "usage")
      }
      const password = Option.isSome(passwordOption) ? passwordOption.value : yield* readStdinLine
      const accounts = yield* Accounts
      const list = domains._tag === "Some" ? domains.value.split(",") : []
      // Recorded without the password; making an operator is the record that matters most here.
      const created = yield* cliAction(
        {
          action: "user.create",
          target: null,
          after: (c) => ({ id: c.user.id, email: c.user.email, role: c.role, domains: c.domains })
        },
        accounts.createUser({ email, password, domains: list, role })
      ).pipe(
        Effect.catchAll((e) =>
          e._tag === "EmailTaken" || e._tag === "DomainTaken" ? abort(e.message, "conflict") : abort(e.message)
        )
      )
      yield* print(
        json,
        {
          id: created.user.id,
          email: created.user.email,
          role: created.role,
          domains: created.domains,
          created_at: created.user.createdAt.toISOString()
        },
        `Created ${created.role === "operator" ? "operator" : "user"} ${created.user.email} (${created.user.id})` +
          (created.domains.length > 0 ? ` owning ${created.domains.join(", ")}` : "")
      )
    })
).pipe(
  Command.withDescription("Create a user who can sign in (POST /api/auth/login, OAuth consent) and run bulk operations")
)

const requiredDomains = Options.text("domains").pipe(
  Options.withDescription("Comma-separated domains to add to the user's portfolio")
)

const userAddDomains = Command.make(
  "add-domains",
  { email, domains: requiredDomains, json },
  ({ domains, email, json }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const added = yield* cliAction(
        { action: "user.add_domains", target: email, after: (a) => ({ id: a.user.id, added: a.domains }) },
        accounts.addDomains({ email, domains: domains.split(",") })
      ).pipe(
        Effect.catchTags({
          UserNotFound: (e) => abort(e.message, "not_found"),
          DomainTaken: (e) => abort(e.message, "conflict"),
          InvalidOwnedDomain: (e) => abort(e.message)
        })
      )
      yield* print(
        json,
        { id: added.user.id, email: added.user.email, added: added.domains },
        `${added.user.email} now also owns ${added.domains.join(", ")}`
      )
    })
).pipe(Command.withDescription("Add owned domains to a user's portfolio (GET /api/domains, bulk operations)"))

export const userCommand = Command.make("user").pipe(
  Command.withDescription("User accounts"),
  Command.withSubcommands([userCreate, userAddDomains])
)

const name = Options.text("name").pipe(Options.withDescription("What the key pair is for (shown in `apikey list`)"))

const apikeyCreate = Command.make("create", { name, json }, ({ json, name }) =>
  Effect.gen(function*() {
    if (name.trim() === "") return yield* abort("--name must not be empty")
    const store = yield* ApiKeyStore
    const issued = yield* cliAction(
      { action: "apikey.create", target: null, after: (k) => ({ key: k.key, name: k.name }) },
      store.create(name.trim())
    )
    yield* print(
      json,
      { key: issued.key, secret: issued.secret },
      `API key pair "${issued.name}" created. Send both headers on /api/v1 requests:\n  x-api-key: ${issued.key}\n  x-api-secret: ${issued.secret}\nThe secret is shown only this once.`
    )
  })).pipe(
    Command.withDescription(
      "Issue an API key pair for GET /api/v1/domains/available (prints {key, secret}; the secret is shown once)"
    )
  )

const apikeyList = Command.make("list", { json }, ({ json }) =>
  Effect.gen(function*() {
    const store = yield* ApiKeyStore
    const keys = yield* store.list
    yield* print(
      json,
      { keys },
      keys.length === 0
        ? "No API keys."
        : keys.map((k) =>
          `${k.key}  ${k.name}  created ${k.created_at}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ""}`
        ).join("\n")
    )
  })).pipe(Command.withDescription("List API key pairs (never their secrets)"))

const keyArg = Args.text({ name: "KEY" }).pipe(Args.withDescription("The public key (ak_…)"))

const apikeyRevoke = Command.make("revoke", { key: keyArg, json }, ({ json, key }) =>
  Effect.gen(function*() {
    const store = yield* ApiKeyStore
    yield* cliAction(
      { action: "apikey.revoke", target: key },
      Effect.flatMap(store.revoke(key), (revoked) => revoked ? Effect.void : abort(`No active API key ${key}`))
    )
    yield* print(json, { key, revoked: true }, `Revoked ${key}.`)
  })).pipe(Command.withDescription("Revoke an API key pair (takes effect at once on every replica)"))

export const apikeyCommand = Command.make("apikey").pipe(
  Command.withDescription("API key pairs for the keyed /api/v1 endpoints"),
  Command.withSubcommands([apikeyCreate, apikeyList, apikeyRevoke])
)
