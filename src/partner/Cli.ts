/**
 * Operator commands of the Partner API:
 *   partner create --name N --env sandbox|live --scopes s1,s2 [--affiliate] [--json]
 *   partner revoke KEY_ID | partner rotate KEY_ID
 *   order hold|clear-review|start-transfer|confirm-delivery|cancel PUBLIC_ID [--note TEXT]
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { abort, json, print } from "../cli/Output.js"
import { ORDER_STATUSES } from "../domain/OrderState.js"
import { isScope, type Scope } from "./Auth.js"
import { Credentials, type IssuedCredential } from "./Credentials.js"
import { Orders } from "./orders/Orders.js"

const name = Options.text("name").pipe(Options.withDescription("Partner name"))
const env = Options.choice("env", ["sandbox", "live"]).pipe(Options.withDescription("Inventory the credential sees"))
const scopes = Options.text("scopes").pipe(
  Options.withDescription("Comma list of: search, embed, buy, broker, refer, report, webhook")
)
const affiliate = Options.boolean("affiliate").pipe(Options.withDescription("Link the partner to an affiliate account (referral endpoints)"))

const parseScopes = (s: string) => {
  const list = s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)
  const bad = list.filter((x) => !isScope(x))
  return bad.length > 0 || list.length === 0 ? Option.none<Array<Scope>>() : Option.some([...new Set(list)] as Array<Scope>)
}

const shown = (c: IssuedCredential) => ({ partner_id: c.partner_id, key_id: c.key_id, secret: c.secret })
const human = (c: IssuedCredential) =>
  `partner_id: ${c.partner_id}\nkey_id:     ${c.key_id}\nsecret:     ${c.secret}\n(${c.environment}; scopes ${c.scopes.join(",")}) — the secret is shown only once; store it now.`

const create = Command.make("create", { json, name, env, scopes, affiliate }, (o) =>
  Effect.gen(function*() {
    const list = parseScopes(o.scopes)
    if (Option.isNone(list)) return yield* abort(`--scopes must be a comma list of search, embed, buy, broker, refer, report, webhook`)
    if (o.name.trim() === "") return yield* abort("--name must not be empty")
    const credentials = yield* Credentials
    const issued = yield* credentials.createPartner({ name: o.name.trim(), environment: o.env, scopes: list.value, affiliate: o.affiliate })
    yield* print(o.json, shown(issued), human(issued))
  })).pipe(Command.withDescription("Create a partner and its first credential (prints the secret once)"))

const keyId = Args.text({ name: "KEY_ID" })

const revoke = Command.make("revoke", { json, keyId }, (o) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    const done = yield* credentials.revoke(o.keyId)
    if (!done) return yield* abort(`No credential ${o.keyId}`)
    yield* print(o.json, { key_id: o.keyId, active: false }, `Revoked ${o.keyId}.`)
  })).pipe(Command.withDescription("Deactivate a credential (its requests get 403 credential_not_active)"))

const rotate = Command.make("rotate", { json, keyId }, (o) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    const issued = yield* credentials.rotate(o.keyId)
    if (Option.isNone(issued)) return yield* abort(`No credential ${o.keyId}`)
    yield* print(o.json, { ...shown(issued.value), revoked_key_id: o.keyId }, `${human(issued.value)}\nRevoked ${o.keyId}.`)
  })).pipe(Command.withDescription("Issue a new key id and secret with the same partner, environment and scopes; revoke the old one"))

export const partnerCommand = Command.make("partner").pipe(
  Command.withDescription("Partner API partners and credentials"),
  Command.withSubcommands([create, revoke, rotate])
)

const publicId = Args.text({ name: "PUBLIC_ID" })
const note = Options.text("note").pipe(Options.optional, Options.withDescription("Recorded in the order's timeline"))

const orderAction = (cmd: string, action: "hold" | "clear_review" | "start_transfer" | "confirm_delivery" | "cancel", description: string) =>
  Command.make(cmd, { json, publicId, note }, (o) =>
    Effect.gen(function*() {
      const orders = yield* Orders
      const result = yield* orders.move(o.publicId, action, { actor: "operator-cli", note: Option.getOrUndefined(o.note) }).pipe(
        Effect.map(Option.some),
        Effect.catchTags({
          NotFound: (e) => Effect.zipRight(abort(e.message), Effect.succeed(Option.none())),
          Conflict: (e) => Effect.zipRight(abort(e.message), Effect.succeed(Option.none()))
        })
      )
      if (Option.isNone(result)) return
      const r = result.value
      yield* print(
        o.json,
        { public_id: r.order.id, status: r.order.status, event_id: r.eventId },
        `${r.order.id}: ${r.order.status}${r.eventId ? ` (event ${r.eventId})` : ""}`
      )
    })).pipe(Command.withDescription(description))

export const orderCommand = Command.make("order").pipe(
  Command.withDescription(`Partner order lifecycle (statuses: ${ORDER_STATUSES.join(", ")})`),
  Command.withSubcommands([
    orderAction("hold", "hold", "Hold an EXTERNALLY_PAID order for manual review (order.held)"),
    orderAction("clear-review", "clear_review", "Clear a held order (order.manual_review_cleared)"),
    orderAction("start-transfer", "start_transfer", "Start the domain push (order.transfer_started)"),
    orderAction("confirm-delivery", "confirm_delivery", "Confirm delivery to the partner's registrar (order.transfer_completed)"),
    orderAction("cancel", "cancel", "Cancel an order before TRANSFER_COMPLETED (order.refunded)")
  ])
)
