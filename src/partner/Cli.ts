/**
 * Operator commands of the Partner API:
 *   partner create --name N --env sandbox|live --scopes s1,s2 [--affiliate] [--commission-bps N] [--json]
 *   partner list [--limit N] | partner show PARTNER_ID | partner set-commission PARTNER_ID --bps N
 *   partner revoke KEY_ID | partner rotate KEY_ID
 *   partner invite --partner ID --email E --role R [--json] (members/Cli.ts)
 *   order list [--status S] [--partner ID] [--env E] [--domain D] [--limit N] | order show PUBLIC_ID
 *   order hold|clear-review|start-transfer|confirm-delivery|cancel PUBLIC_ID [--note TEXT]
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { cliAction } from "../audit/Actor.js"
import { abort, json, print } from "../cli/Output.js"
import { ORDER_STATUSES } from "../domain/OrderState.js"
import { isScope, type Scope } from "./Auth.js"
import { Credentials, type IssuedCredential } from "./Credentials.js"
import { inviteCommand } from "./members/Cli.js"
import { Orders } from "./orders/Orders.js"
import { refundOf } from "./orders/View.js"
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

const limit = Options.integer("limit").pipe(
  Options.withDefault(50),
  Options.withDescription("At most this many rows (1–1000)")
)
const checkLimit = (
  n: number
) => (n >= 1 && n <= 1000 ? Effect.void : abort("--limit must be between 1 and 1000", "usage"))

const partnerJson = (p: PartnerSummaryRow) => ({
  partner_id: p.id,
  name: p.name,
  affiliate: p.affiliate,
  commission_bps: p.commission_bps,
  created_at: p.created_at.toISOString(),
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
  return `${p.id}  ${p.name}${p.affiliate ? " [affiliate]" : ""}  commission ${p.commission_bps / 100} %  ${
    keys || "no credentials"
  }`
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
    const head = `${p.partner_id}  ${p.name}${p.affiliate ? " [affiliate]" : ""}  commission ${
      p.commission_bps / 100
    } %  created ${p.created_at}`
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

export const partnerCommand = Command.make("partner").pipe(
  Command.withDescription("Partner API partners and credentials"),
  Command.withSubcommands([create, list, show, setCommission, revoke, rotate, inviteCommand])
)

const publicId = Args.text({ name: "PUBLIC_ID" })
const note = Options.text("note").pipe(Options.optional, Options.withDescription("Recorded in the order's timeline"))

const orderAction = (
  cmd: string,
  action: "hold" | "clear_review" | "start_transfer" | "confirm_delivery" | "cancel",
  description: string
) =>
  Command.make(cmd, { json, publicId, note }, (o) =>
    Effect.gen(function*() {
      const orders = yield* Orders
      const result = yield* cliAction(
        {
          action: `order.${cmd}`,
          target: o.publicId,
          before: orders.detail(o.publicId),
          after: (r) => ({ status: r.order.status, event_id: r.eventId })
        },
        orders.move(o.publicId, action, { actor: "operator-cli", note: Option.getOrUndefined(o.note) })
      ).pipe(
        Effect.map(Option.some),
        Effect.catchTags({
          OrderNotFound: (e) => Effect.zipRight(abort(e.message, "not_found"), Effect.succeed(Option.none())),
          OrderMoveNotAllowed: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none()))
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

const orderRefund = Command.make("refund", {
  json,
  publicId,
  reason: Options.text("reason").pipe(
    Options.optional,
    Options.withDescription("Recorded with the refund and in the order's timeline")
  )
}, (o) =>
  Effect.gen(function*() {
    const reason = Option.getOrNull(o.reason)
    const orders = yield* Orders
    // The refund calls the payment provider between its own transactions: recorded once it succeeded.
    const result = yield* cliAction(
      {
        action: "order.refund",
        target: o.publicId,
        before: orders.detail(o.publicId),
        after: (r) => refundOf(r.order, r.refundId!),
        transactional: false
      },
      orders.operatorRefund(o.publicId, reason, "operator-cli")
    ).pipe(
      Effect.map(Option.some),
      Effect.catchTags({
        OrderNotFound: (e) => Effect.zipRight(abort(e.message, "not_found"), Effect.succeed(Option.none())),
        OrderMoveNotAllowed: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none()))
      })
    )
    if (Option.isNone(result)) return
    const refund = refundOf(result.value.order, result.value.refundId!)
    yield* print(
      o.json,
      refund,
      `${refund.order_id}: REFUNDED ${refund.amount_cents} ${refund.currency} (refund ${refund.refund_id})`
    )
  })).pipe(
    Command.withDescription(
      "Refund any order before TRANSFER_COMPLETED (order.refunded; card payments go back at the provider); marketplace, referral and brokerage sales are refunded only by operators"
    )
  )

const orderList = Command.make("list", {
  json,
  limit,
  status: Options.choice("status", ORDER_STATUSES).pipe(Options.optional),
  partner: Options.text("partner").pipe(Options.optional, Options.withDescription("Only this partner's orders")),
  env: Options.choice("env", ["sandbox", "live"]).pipe(Options.optional),
  domain: Options.text("domain").pipe(Options.optional)
}, (o) =>
  Effect.gen(function*() {
    yield* checkLimit(o.limit)
    const orders = yield* (yield* Orders).listAll({
      status: Option.getOrUndefined(o.status),
      partnerId: Option.getOrUndefined(o.partner),
      environment: Option.getOrUndefined(o.env),
      domain: Option.getOrUndefined(o.domain)?.toLowerCase()
    }, o.limit)
    const lines = orders.map((r) =>
      `${r.public_id}  ${r.status.padEnd(20)} ${r.domain}  ${r.sale_price_cents} ${r.currency}  ${r.created_at}`
    )
    yield* print(o.json, { orders }, orders.length === 0 ? "No orders." : lines.join("\n"))
  })).pipe(Command.withDescription("List orders of every partner, newest first"))

const orderShow = Command.make("show", { json, publicId }, (o) =>
  Effect.gen(function*() {
    const detail = yield* (yield* Orders).detail(o.publicId).pipe(
      Effect.map(Option.some),
      Effect.catchTag("OrderNotFound", (e) =>
        Effect.zipRight(abort(e.message, "not_found"), Effect.succeed(Option.none())))
    )
    if (Option.isNone(detail)) {
      return
    }
    const d = detail.value
    const timeline = d.timeline.map((t) =>
      `  ${t.at}  ${t.status ?? t.step}  by ${t.actor}${t.note ? ` — ${t.note}` : ""}`
    )
    yield* print(
      o.json,
      d,
      [`${d.public_id}  ${d.status}  ${d.domain}  ${d.sale_price_cents} ${d.currency}  (${d.environment})`, ...timeline]
        .join("\n")
    )
  })).pipe(Command.withDescription("One order with its transfer state and timeline"))

/** The `order` commands of the Partner API (src/cli.ts adds other capabilities' order commands to them). */
export const orderSubcommands = [
  orderList,
  orderShow,
  orderAction("hold", "hold", "Hold an EXTERNALLY_PAID order for manual review (order.held)"),
  orderAction("clear-review", "clear_review", "Clear a held order (order.manual_review_cleared)"),
  orderAction("start-transfer", "start_transfer", "Start the domain push (order.transfer_started)"),
  orderAction(
    "confirm-delivery",
    "confirm_delivery",
    "Confirm delivery to the partner's registrar (order.transfer_completed)"
  ),
  orderAction("cancel", "cancel", "Cancel an order before TRANSFER_COMPLETED (order.refunded)"),
  orderRefund
] as const

export const orderDescription = `Partner order lifecycle (statuses: ${ORDER_STATUSES.join(", ")})`
