/**
 * Operator commands of the Partner API:
 *   partner create --name N --env sandbox|live --scopes s1,s2 [--affiliate] [--commission-bps N] [--json]
 *   partner list [--limit N] | partner show PARTNER_ID | partner set-commission PARTNER_ID --bps N
 *   partner revoke KEY_ID | partner rotate KEY_ID
 *   partner suspend PARTNER_ID | partner resume PARTNER_ID | partner set-scopes KEY_ID --scopes s1,s2
 *   partner invite --partner ID --email E --role R [--json] (members/Cli.ts)
 * (the `order` commands: orders/Cli.ts). Each change is recorded in the audit log (`cliAction`).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { cliAction } from "../audit/Actor.js"
import { abort, json, print } from "../cli/Output.js"
import { isScope, type Scope, SCOPES } from "./Auth.js"
import { Credentials, type IssuedCredential } from "./Credentials.js"
import { inviteCommand } from "./members/Cli.js"
import type { PartnerSummaryRow } from "./Repo.js"

const name = Options.text("name").pipe(Options.withDescription("Partner name"))
const env = Options.choice("env", ["sandbox", "live"]).pipe(Options.withDescription("Inventory the credential sees"))
const scopes = Options.text("scopes").pipe(
  Options.withDescription("Comma list of: search, embed, buy, broker, refer, report, webhook")
)
const BPS = "Basis points of each sale the partner keeps, 0–10000 (1000 = 10 %)"
const commissionBps = Options.integer("commission-bps").pipe(
  Options.withDefault(1000),
  Options.withDescription(`${BPS}; default 1000`)
)
const checkBps = (
  bps: number
) => (Number.isInteger(bps) && bps >= 0 && bps <= 10_000
  ? Effect.void
  : abort("--commission-bps must be between 0 and 10000", "usage"))
const affiliate = Options.boolean("affiliate").pipe(
  Options.withDescription("Link the partner to an affiliate account (referral endpoints)")
)

const parseScopes = (s: string) => {
  const list = s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)
  const bad = list.filter((x) => !isScope(x))
  return bad.length > 0 || list.length === 0
    ? Option.none<Array<Scope>>()
    : Option.some([...new Set(list)] as Array<Scope>)
}

const shown = (c: IssuedCredential) => ({ partner_id: c.partner_id, key_id: c.key_id, secret: c.secret })
/** A credential as the audit log keeps it: never its secret. */
const audited = (c: IssuedCredential) => ({
  partner_id: c.partner_id,
  key_id: c.key_id,
  environment: c.environment,
  scopes: c.scopes
})
const human = (c: IssuedCredential) =>
  `partner_id: ${c.partner_id}\nkey_id:     ${c.key_id}\nsecret:     ${c.secret}\n(${c.environment}; scopes ${
    c.scopes.join(",")
  }) — the secret is shown only once; store it now.`

const create = Command.make(
  "create",
  { json, name, env, scopes, affiliate, commissionBps },
  (o) =>
    Effect.gen(function*() {
      yield* checkBps(o.commissionBps)
      const list = parseScopes(o.scopes)
      if (Option.isNone(list)) {
        return yield* abort(
          `--scopes must be a comma list of search, embed, buy, broker, refer, report, webhook`,
          "usage"
        )
      }
      if (o.name.trim() === "") return yield* abort("--name must not be empty", "usage")
      const credentials = yield* Credentials
      const issued = yield* cliAction(
        {
          action: "partner.create",
          target: null,
          after: (c) => ({
            ...audited(c),
            name: o.name.trim(),
            affiliate: o.affiliate,
            commission_bps: o.commissionBps
          })
        },
        credentials.createPartner({
          name: o.name.trim(),
          environment: o.env,
          scopes: list.value,
          affiliate: o.affiliate,
          commissionBps: o.commissionBps
        })
      )
      yield* print(o.json, shown(issued), human(issued))
    })
).pipe(Command.withDescription("Create a partner and its first credential (prints the secret once)"))

const keyId = Args.text({ name: "KEY_ID" })

const revoke = Command.make("revoke", { json, keyId }, (o) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    // An unknown key fails inside the action, so nothing is recorded for it.
    const revoked = yield* cliAction(
      { action: "credential.revoke", target: o.keyId },
      Effect.flatMap(credentials.revoke(o.keyId), (done) =>
        done ? Effect.succeed({ key_id: o.keyId, active: false }) : abort(`No credential ${o.keyId}`, "not_found"))
    )
    yield* print(o.json, revoked, `Revoked ${o.keyId}.`)
  })).pipe(Command.withDescription("Deactivate a credential (its requests get 403 credential_not_active)"))

const rotate = Command.make("rotate", { json, keyId }, (o) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    const issued = yield* cliAction(
      { action: "credential.rotate", target: o.keyId, after: audited },
      Effect.flatMap(
        credentials.rotate(o.keyId),
        Option.match({
          onNone: () => abort(`No credential ${o.keyId}`, "not_found"),
          onSome: Effect.succeed
        })
      )
    )
    yield* print(o.json, { ...shown(issued), revoked_key_id: o.keyId }, `${human(issued)}\nRevoked ${o.keyId}.`)
  })).pipe(
    Command.withDescription(
      "Issue a new key id and secret with the same partner, environment and scopes; revoke the old one"
    )
  )

export const limit = Options.integer("limit").pipe(
  Options.withDefault(50),
  Options.withDescription("At most this many rows (1–1000)")
)
export const checkLimit = (
  n: number
) => (n >= 1 && n <= 1000 ? Effect.void : abort("--limit must be between 1 and 1000", "usage"))

const partnerJson = (p: PartnerSummaryRow) => ({
  partner_id: p.id,
  name: p.name,
  affiliate: p.affiliate,
  commission_bps: p.commission_bps,
  created_at: p.created_at.toISOString(),
  suspended_at: p.suspended_at === null ? null : p.suspended_at.toISOString(),
  granted_scopes: p.granted_scopes,
  credentials: p.credentials.map((c) => ({
    key_id: c.key_id,
    environment: c.environment,
    scopes: c.scopes,
    active: c.active,
    created_at: c.created_at.toISOString(),
    revoked_at: c.revoked_at === null ? null : c.revoked_at.toISOString()
  }))
})
const partnerLine = (p: PartnerSummaryRow) => {
  const keys = p.credentials.map((c) => `${c.key_id}${c.active ? "" : " (revoked)"}`).join(", ")
  return `${p.id}  ${p.name}${p.affiliate ? " [affiliate]" : ""}${p.suspended_at ? " [suspended]" : ""}  commission ${
    p.commission_bps / 100
  } %  ${keys || "no credentials"}`
}

const list = Command.make("list", { json, limit }, (o) =>
  Effect.gen(function*() {
    yield* checkLimit(o.limit)
    const partners = yield* (yield* Credentials).listPartners(o.limit)
    yield* print(
      o.json,
      { partners: partners.map(partnerJson) },
      partners.length === 0 ? "No partners." : partners.map(partnerLine).join("\n")
    )
  })).pipe(Command.withDescription("List partners, newest first, with their credentials (never secrets)"))

const partnerId = Args.text({ name: "PARTNER_ID" })

const show = Command.make("show", { json, partnerId }, (o) =>
  Effect.gen(function*() {
    const found = yield* (yield* Credentials).showPartner(o.partnerId)
    if (Option.isNone(found)) return yield* abort(`No partner ${o.partnerId}`, "not_found")
    const p = partnerJson(found.value)
    const keys = p.credentials.map((c) =>
      `  ${c.key_id}  ${c.environment}  ${c.scopes.join(",")}  ${c.active ? "active" : `revoked ${c.revoked_at}`}`
    )
    const head = `${p.partner_id}  ${p.name}${p.affiliate ? " [affiliate]" : ""}${
      p.suspended_at ? ` [suspended ${p.suspended_at}]` : ""
    }  commission ${p.commission_bps / 100} %  created ${p.created_at}`
    yield* print(o.json, p, [head, ...keys].join("\n"))
  })).pipe(Command.withDescription("One partner and its credentials"))

const setCommission = Command.make("set-commission", {
  json,
  partnerId,
  bps: Options.integer("bps").pipe(Options.withDescription(BPS))
}, (o) =>
  Effect.gen(function*() {
    yield* checkBps(o.bps)
    const credentials = yield* Credentials
    yield* cliAction(
      {
        action: "partner.set_commission",
        target: o.partnerId,
        before: Effect.map(
          credentials.showPartner(o.partnerId),
          Option.match({ onNone: () => null, onSome: (p) => ({ commission_bps: p.commission_bps }) })
        ),
        after: () => ({ commission_bps: o.bps })
      },
      Effect.flatMap(credentials.setCommission(o.partnerId, o.bps), (done) =>
        done ? Effect.void : abort(`No partner ${o.partnerId}`, "not_found"))
    )
    yield* print(
      o.json,
      { partner_id: o.partnerId, commission_bps: o.bps },
      `${o.partnerId}: commission ${o.bps / 100} % on orders recorded from now on.`
    )
  })).pipe(
    Command.withDescription(
      "Change a partner's commission for orders recorded from now on (recorded orders keep their rate)"
    )
  )

const suspension = (cmd: "suspend" | "resume") =>
  Command.make(cmd, { json, partnerId }, (o) =>
    Effect.gen(function*() {
      const credentials = yield* Credentials
      const suspended = cmd === "suspend"
      yield* cliAction(
        {
          action: `partner.${cmd}`,
          target: o.partnerId,
          before: credentials.suspensionOf(o.partnerId),
          after: () => ({ suspended })
        },
        Effect.flatMap(
          credentials.setSuspended(o.partnerId, suspended),
          (done) => done ? Effect.void : abort(`No partner ${o.partnerId}`, "not_found")
        )
      )
      yield* print(
        o.json,
        { partner_id: o.partnerId, suspended },
        suspended
          ? `${o.partnerId}: suspended; its keys get 403 credential_not_active until \`partner resume\`.`
          : `${o.partnerId}: resumed; its active keys work again.`
      )
    })).pipe(
      Command.withDescription(
        cmd === "suspend"
          ? "Suspend a partner: every one of its keys is refused (403 credential_not_active); orders and money stay"
          : "Resume a suspended partner: its active keys work again"
      )
    )

const setScopes = Command.make("set-scopes", { json, keyId, scopes }, (o) =>
  Effect.gen(function*() {
    const chosen = parseScopes(o.scopes)
    if (Option.isNone(chosen)) return yield* abort(`--scopes: a comma list of ${SCOPES.join(", ")}`, "usage")
    const credentials = yield* Credentials
    yield* cliAction(
      { action: "credential.set_scopes", target: o.keyId, after: () => ({ scopes: chosen.value }) },
      Effect.flatMap(credentials.setScopes(o.keyId, chosen.value), (done) =>
        done ? Effect.void : abort(`No active credential ${o.keyId}`, "not_found"))
    )
    yield* print(
      o.json,
      { key_id: o.keyId, scopes: chosen.value },
      `${o.keyId}: scopes ${chosen.value.join(",")} from its next request.`
    )
  })).pipe(Command.withDescription("Change an active credential's scopes (they hold from its next request)"))

export const partnerCommand = Command.make("partner").pipe(
  Command.withDescription("Partner API partners and credentials"),
  Command.withSubcommands([
    create,
    list,
    show,
    setCommission,
    suspension("suspend"),
    suspension("resume"),
    revoke,
    rotate,
    setScopes,
    inviteCommand
  ])
)
