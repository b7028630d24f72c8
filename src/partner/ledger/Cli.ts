/**
 * Operator commands of the ledger:
 *   settle [--as-of ISO] [--json]                    the settlement run (skipped while another runs)
 *   ledger verify [--json]                           reconciliation; exit 1 on any difference
 *   ledger balance --partner P [--env live|sandbox]  a partner's balances
 *   ledger receipt --partner P --amount CENTS --reference R [--env live|sandbox] [--json]
 *                                                    the partner paid what its statements say it owes
 *   ledger export transactions --partner P [--env] [--from] [--to] [--status] [--payment-model]
 *   ledger export statement STATEMENT_ID            CSV on stdout (header row), as the Partner API
 *   statements list [--limit N] [--json]             newest statements of every partner
 *   payouts run [--json]                             pay payable commission at or above PAYOUT_MINIMUM_CENTS
 *   payouts set-account --partner P --account acct_… the partner's Stripe connected account
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { cliAction } from "../../audit/Actor.js"
import { abort, json, print } from "../../cli/Output.js"
import { PAYMENT_MODELS } from "../../domain/Ledger.js"
import { format, isAmountCents, MAX_AMOUNT_CENTS, money } from "../../domain/Money.js"
import { ORDER_STATUSES } from "../../domain/OrderState.js"
import { dateWindow } from "../Common.js"
import { Exports } from "./Exports.js"
import { Payouts } from "./Payouts.js"
import { Receipts } from "./Receipts.js"
import { Reconcile } from "./Reconcile.js"
import { MoneyRepo } from "./Repo.js"
import { Settlement } from "./Settlement.js"

const asOf = Options.text("as-of").pipe(
  Options.optional,
  Options.withDescription("Settle as of this RFC 3339 time (default now)")
)

export const settleCommand = Command.make("settle", { json, asOf }, (o) =>
  Effect.gen(function*() {
    let date: Date | undefined
    if (Option.isSome(o.asOf)) {
      date = new Date(o.asOf.value)
      if (!/^\d{4}-\d{2}-\d{2}/.test(o.asOf.value) || Number.isNaN(date.getTime())) {
        return yield* abort("--as-of must be an RFC 3339 date-time")
      }
    }
    const settlement = yield* Settlement
    // The run holds a session lock on its own connection and commits statement by statement.
    const r = yield* cliAction(
      { action: "settlement.run", target: null, transactional: false },
      settlement.run({ asOf: date, trigger: "cli" })
    )
    if (r.status === "skipped") {
      yield* print(o.json, r, "Another settlement run is in progress; nothing done.")
      return
    }
    yield* print(
      o.json,
      r,
      [`Run ${r.run_id} as of ${r.as_of.toISOString()} (orders completed by ${r.cutoff.toISOString()}): ${r.orders_settled} orders settled, ${r.statements.length} statements.`]
        .concat(r.statements.map((s) =>
          `  ${s.id} ${s.partner_id} ${s.environment}: ${s.orders_count} orders, gross ${
            format(money(s.gross_sold_cents, s.currency))
          }, owed ${format(money(s.amount_owed_cents, s.currency))}`
        ))
        .join("\n")
    )
  })).pipe(Command.withDescription("Settle every TRANSFER_COMPLETED order older than SETTLEMENT_HOLD_DAYS"))

const verify = Command.make("verify", { json }, (o) =>
  Effect.gen(function*() {
    const report = yield* (yield* Reconcile).verify
    yield* print(
      o.json,
      report,
      report.ok
        ? `The books balance: ${report.checked.transactions} transactions, ${report.checked.statements} statements, ${report.checked.orders} orders, ${report.checked.payouts} payouts.`
        : report.problems.map((p) => `${p.check} ${p.subject}: ${p.message}`).join("\n")
    )
    if (!report.ok) return yield* abort(`${report.problems.length} differences`)
  })).pipe(
    Command.withDescription("Prove every transaction balances and statements, balances and payouts match the orders")
  )

const partner = Options.text("partner").pipe(Options.withDescription("Partner id (ptn_…)"))
const env = Options.choice("env", ["live", "sandbox"]).pipe(Options.withDefault("live" as const))

const balance = Command.make("balance", { json, partner, env }, (o) =>
  Effect.gen(function*() {
    const b = yield* (yield* Reconcile).balance(o.partner, o.env).pipe(
      Effect.catchTag("PartnerNotFound", (e) => abort(e.message, "not_found"))
    )
    yield* print(
      o.json,
      b,
      Object.entries(b.accounts).map(([k, v]) => `${k.padEnd(28)} ${format(money(v, b.currency))}`).join("\n")
    )
  })).pipe(Command.withDescription("A partner's account balances (debit-positive)"))

const amount = Options.integer("amount").pipe(Options.withDescription("What the partner paid, integer USD cents"))
const reference = Options.text("reference").pipe(
  Options.withDescription("Your reference for the payment (bank transfer id…); one receipt per reference")
)

const receiptCommand = Command.make(
  "receipt",
  { json, partner, env, amount, reference },
  (o) =>
    Effect.gen(function*() {
      if (!isAmountCents(o.amount) || o.amount <= 0) {
        return yield* abort(`--amount must be integer cents, 1 to ${MAX_AMOUNT_CENTS}`, "usage")
      }
      if (o.reference.length === 0 || o.reference.length > 200) {
        return yield* abort("--reference must be 1 to 200 characters", "usage")
      }
      const receipts = yield* Receipts
      const r = yield* cliAction(
        { action: "ledger.receipt", target: o.partner },
        receipts.record({ partnerId: o.partner, environment: o.env, amountCents: o.amount, reference: o.reference })
      ).pipe(
        Effect.catchTags({
          PartnerNotFound: (e) => abort(e.message, "not_found"),
          ReceiptExceedsOwed: (e) => abort(e.message, "conflict"),
          ReceiptReferenceUsed: (e) => abort(e.message, "conflict")
        })
      )
      yield* print(
        o.json,
        r,
        `${r.replayed ? "Already recorded" : "Recorded"}: ${r.id} ${
          format(money(r.amount_cents, r.currency))
        } from ${r.partner_id} (${r.reference}); still owed ${format(money(r.owed_cents, r.currency))}${
          r.statements_paid.length > 0 ? `; paid: ${r.statements_paid.join(", ")}` : ""
        }.`
      )
    })
).pipe(Command.withDescription("Record that a partner paid what its statements say it owes"))

const optionalText = (name: string, description: string) =>
  Options.text(name).pipe(Options.optional, Options.withDescription(description))

const exportTransactions = Command.make("transactions", {
  partner,
  env,
  from: optionalText("from", "RFC 3339 date-time or YYYY-MM-DD (created at or after)"),
  to: optionalText("to", "RFC 3339 date-time or YYYY-MM-DD (created before)"),
  status: Options.choice("status", ORDER_STATUSES).pipe(Options.optional),
  paymentModel: Options.choice("payment-model", PAYMENT_MODELS).pipe(Options.optional)
}, (o) =>
  Effect.gen(function*() {
    const window = yield* dateWindow(Option.getOrUndefined(o.from), Option.getOrUndefined(o.to)).pipe(
      Effect.catchTag("InvalidDateWindow", (e) => abort(e.message, "usage"))
    )
    const text = yield* (yield* Exports).transactions({ partnerId: o.partner, environment: o.env }, {
      ...window,
      status: Option.getOrUndefined(o.status),
      paymentModel: Option.getOrUndefined(o.paymentModel)
    })
    yield* Effect.sync(() => process.stdout.write(text))
  })).pipe(Command.withDescription("A partner's sales history as CSV (the filters of GET /transactions)"))

const statementId = Args.text({ name: "statement_id" }).pipe(Args.withDescription("stl_…"))

const exportStatement = Command.make("statement", { statementId }, (o) =>
  Effect.gen(function*() {
    const text = yield* (yield* Exports).statement(o.statementId, null)
    if (Option.isNone(text)) return yield* abort(`Statement ${o.statementId} not found`, "not_found")
    yield* Effect.sync(() => process.stdout.write(text.value))
  })).pipe(Command.withDescription("One statement's lines as CSV"))

const exportCommand = Command.make("export").pipe(
  Command.withDescription("CSV exports (header row) of the partner money reads"),
  Command.withSubcommands([exportTransactions, exportStatement])
)

export const ledgerCommand = Command.make("ledger").pipe(
  Command.withDescription("The partner ledger"),
  Command.withSubcommands([verify, balance, receiptCommand, exportCommand])
)

const limit = Options.integer("limit").pipe(Options.withDefault(25))

const list = Command.make("list", { json, limit }, (o) =>
  Effect.gen(function*() {
    const rows = yield* (yield* MoneyRepo).statements(null, {}, null, o.limit)
    yield* print(
      o.json,
      { statements: rows },
      rows.length === 0
        ? "No statements."
        : rows.map((s) =>
          `${s.id} ${s.partner_id} ${s.environment} ${s.orders_count} orders gross ${
            format(money(s.gross_sold_cents, s.currency))
          } owed ${format(money(s.amount_owed_cents, s.currency))}`
        ).join("\n")
    )
  })).pipe(Command.withDescription("Newest settlement statements of every partner"))

export const statementsCommand = Command.make("statements").pipe(
  Command.withDescription("Settlement statements"),
  Command.withSubcommands([list])
)

const runPayouts = Command.make("run", { json }, (o) =>
  Effect.gen(function*() {
    const payouts = yield* Payouts
    const r = yield* cliAction({ action: "payouts.run", target: null, transactional: false }, payouts.run)
    yield* print(
      o.json,
      r,
      r.status === "skipped"
        ? "Another payout run is in progress; nothing done."
        : r.payouts.length === 0
        ? "Nothing to pay."
        : r.payouts.map((p) =>
          `${p.id} ${p.partner_id} ${p.environment} ${format(money(p.amount_cents, "USD"))} ${p.status}`
        ).join("\n")
    )
  })).pipe(Command.withDescription("Pay every partner's payable commission at or above PAYOUT_MINIMUM_CENTS"))

const account = Options.text("account").pipe(Options.withDescription("Stripe connected account id (acct_…)"))

const setAccount = Command.make("set-account", { json, partner, account }, (o) =>
  Effect.gen(function*() {
    if (!/^acct_[A-Za-z0-9]+$/.test(o.account)) return yield* abort("--account must be a Stripe account id (acct_…)")
    const payouts = yield* Payouts
    yield* cliAction(
      { action: "payouts.set_account", target: o.partner, after: () => ({ payout_account: o.account }) },
      Effect.flatMap(payouts.setAccount(o.partner, o.account), (ok) =>
        ok ? Effect.void : abort(`No partner ${o.partner}`))
    )
    yield* print(o.json, { partner_id: o.partner, payout_account: o.account }, `${o.partner} is paid to ${o.account}.`)
  })).pipe(Command.withDescription("Set the partner's Stripe connected account for live payouts"))

export const payoutsCommand = Command.make("payouts").pipe(
  Command.withDescription("Commission payouts"),
  Command.withSubcommands([runPayouts, setAccount])
)
