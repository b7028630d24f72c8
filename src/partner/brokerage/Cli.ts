/**
 * Operator commands of brokerage cases (docs/brokerage.md#operators):
 *
 *   brokerage list [--status S] [--partner ID] [--env E] [--limit N]
 *   brokerage show CASE_ID
 *   brokerage advance CASE_ID [--price CENTS] [--note TEXT]
 *   brokerage close CASE_ID --outcome won|lost|cancelled [--price CENTS] [--note TEXT]
 *
 * Exit codes per src/cli/Output.ts: 3 unknown case, 4 move not allowed now, 2 bad price.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { cliAction } from "../../audit/Actor.js"
import { abort, json, print } from "../../cli/Output.js"
import { CASE_STATUSES, type CaseAction, CLOSE_OUTCOMES } from "../../domain/Brokerage.js"
import { Brokerage } from "./Brokerage.js"

const caseId = Args.text({ name: "CASE_ID" })
const note = Options.text("note").pipe(
  Options.optional,
  Options.withDescription("Recorded in the case's timeline (not shown to the buyer)")
)
const price = Options.integer("price").pipe(
  Options.optional,
  Options.withDescription("Deal price in USD cents: recorded at deal_agreed; needed to close won unless agreed before")
)
const limit = Options.integer("limit").pipe(Options.withDefault(50), Options.withDescription("1–500, default 50"))

const show = (asJson: boolean, d: Effect.Effect.Success<ReturnType<Brokerage["detail"]>>) => {
  const timeline = d.timeline.map((t) =>
    `  ${t.at}  ${t.from_status ?? "·"} → ${t.status}  by ${t.actor}${
      t.price_cents !== null ? `  price ${t.price_cents}` : ""
    }${t.note ? ` — ${t.note}` : ""}`
  )
  const money = d.deal_price_cents === null
    ? ""
    : `  deal ${d.deal_price_cents} fee ${d.brokerage_fee_cents} partner ${d.partner_commission_cents} (${d.order_id})`
  return print(
    asJson,
    d,
    [
      `${d.id}  ${d.status}  ${d.domain}  ${d.tier}  budget ${d.budget} ${d.currency}  (${d.environment})${money}`,
      ...timeline
    ].join("\n")
  )
}

const runMove = (
  o: { json: boolean; caseId: string; price: Option.Option<number>; note: Option.Option<string> },
  action: CaseAction
) =>
  Effect.gen(function*() {
    const brokerage = yield* Brokerage
    const moved = brokerage.move(o.caseId, action, {
      actor: "operator-cli",
      priceCents: Option.getOrUndefined(o.price),
      note: Option.getOrUndefined(o.note)
    }).pipe(Effect.zipRight(brokerage.detail(o.caseId)))
    const result = yield* cliAction(
      { action: `brokerage.${action._tag}`, target: o.caseId, before: brokerage.detail(o.caseId) },
      moved
    ).pipe(
      Effect.map(Option.some),
      Effect.catchTags({
        BrokerageCaseNotFound: (e) => Effect.zipRight(abort(e.message, "not_found"), Effect.succeed(Option.none())),
        CaseMoveNotAllowed: (e) => Effect.zipRight(abort(e.message, "conflict"), Effect.succeed(Option.none())),
        InvalidCaseMove: (e) => Effect.zipRight(abort(e.message, "usage"), Effect.succeed(Option.none()))
      })
    )
    if (Option.isSome(result)) yield* show(o.json, result.value)
  })

const advance = Command.make("advance", { json, caseId, price, note }, (o) => runMove(o, { _tag: "advance" })).pipe(
  Command.withDescription(
    "Move a case to its next status (brokerage.case_updated; deal_agreed → closed_won needs --price unless agreed)"
  )
)

const close = Command.make("close", {
  json,
  caseId,
  price,
  note,
  outcome: Options.choice("outcome", CLOSE_OUTCOMES).pipe(
    Options.withDescription("won (from deal_agreed) | lost | cancelled")
  )
}, (o) => runMove(o, { _tag: "close", outcome: o.outcome })).pipe(
  Command.withDescription(
    "Close a case won (from deal_agreed, with a price; brokerage.case_completed), lost or cancelled"
  )
)

const list = Command.make("list", {
  json,
  limit,
  status: Options.choice("status", CASE_STATUSES).pipe(Options.optional),
  partner: Options.text("partner").pipe(Options.optional, Options.withDescription("Only this partner's cases")),
  env: Options.choice("env", ["sandbox", "live"]).pipe(Options.optional)
}, (o) =>
  Effect.gen(function*() {
    if (o.limit < 1 || o.limit > 500) return yield* abort("--limit must be 1..500", "usage")
    const page = yield* (yield* Brokerage).list(
      {
        status: Option.getOrUndefined(o.status),
        partnerId: Option.getOrUndefined(o.partner),
        environment: Option.getOrUndefined(o.env)
      },
      null,
      o.limit
    )
    const lines = page.cases.map((c) =>
      `${c.id}  ${c.status.padEnd(17)} ${c.domain}  ${c.tier}  budget ${c.budget}  ${c.created_at}`
    )
    yield* print(o.json, { cases: page.cases }, page.cases.length === 0 ? "No cases." : lines.join("\n"))
  })).pipe(Command.withDescription("Brokerage cases of every partner, newest first"))

const showCommand = Command.make("show", { json, caseId }, (o) =>
  Effect.gen(function*() {
    const d = yield* (yield* Brokerage).detail(o.caseId).pipe(
      Effect.map(Option.some),
      Effect.catchTag("BrokerageCaseNotFound", (e) =>
        Effect.zipRight(abort(e.message, "not_found"), Effect.succeed(Option.none())))
    )
    if (Option.isSome(d)) {
      yield* show(o.json, d.value)
    }
  })).pipe(Command.withDescription("One case with its timeline and, when won, the deal and commission"))

export const brokerageCommand = Command.make("brokerage").pipe(
  Command.withDescription(`Brokerage cases (statuses: ${CASE_STATUSES.join(", ")})`),
  Command.withSubcommands([
    list,
    showCommand,
    advance,
    close
  ])
)
