/**
 * Money endpoints of the operator side (bearer ADMIN_TOKEN): the settlement run, the
 * reconciliation check, balances, statements, payouts and received payments; the partner side
 * (and the shared money and time schemas) is Api.ts.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { AdminAuth } from "../../admin/Auth.js"
import { ACCOUNTS } from "../../domain/Ledger.js"
import { MAX_AMOUNT_CENTS, PositiveAmountCents } from "../../domain/Money.js"
import { BadRequest, errorWire, InternalError, Unauthorized } from "../../platform/http/Errors.js"
import { InvalidCursorWire } from "../../platform/http/PageCursor.js"
import { IsoDate, Paging } from "../Common.js"
import { InvalidDateWindow } from "../Errors.js"
import { Cents, PAYOUT_EXAMPLE, STATEMENT_EXAMPLE, StatementPage, Time, time } from "./Api.js"
import { PartnerNotFound, ReceiptExceedsOwed, ReceiptReferenceUsed } from "./Errors.js"

export const RunResult = Schema.Struct({
  status: Schema.Literal("completed", "skipped").annotations({ description: "skipped: another run holds the lock" }),
  run_id: Schema.NullOr(Schema.String),
  as_of: Time,
  cutoff: time("as_of − SETTLEMENT_HOLD_DAYS: orders completed at or before it settle"),
  orders_settled: Schema.Int,
  statements: Schema.Array(Schema.Struct({
    id: Schema.String,
    partner_id: Schema.String,
    environment: Schema.Literal("live", "sandbox"),
    currency: Schema.String,
    orders_count: Schema.Int,
    gross_sold_cents: Cents,
    amount_owed_cents: Cents,
    commission_payable_cents: Cents
  }))
}).annotations({
  identifier: "SettlementRunResult",
  examples: [{
    status: "completed" as const,
    run_id: "str_01jd9q2v8b7n6m5k4j3h2g1f0d",
    as_of: new Date("2026-01-08T00:05:00.000Z"),
    cutoff: new Date("2026-01-01T00:05:00.000Z"),
    orders_settled: 1,
    statements: [{
      id: STATEMENT_EXAMPLE.id,
      partner_id: "ptn_01jcz8x7c6v5b4n3m2l1k0j9h8",
      environment: "live" as const,
      currency: "USD",
      orders_count: 1,
      gross_sold_cents: 250000,
      amount_owed_cents: 225000,
      commission_payable_cents: 0
    }]
  }]
})

export const VerifyReport = Schema.Struct({
  ok: Schema.Boolean,
  checked: Schema.Struct({
    transactions: Schema.Int,
    statements: Schema.Int,
    orders: Schema.Int,
    payouts: Schema.Int,
    payments: Schema.Int.annotations({ description: "Captured payments of the payment provider layer, reconciled" }),
    receipts: Schema.Int
  }),
  problems: Schema.Array(Schema.Struct({ check: Schema.String, subject: Schema.String, message: Schema.String }))
}).annotations({
  identifier: "LedgerVerifyReport",
  examples: [{
    ok: true,
    checked: { transactions: 42, statements: 3, orders: 17, payouts: 2, payments: 9, receipts: 1 },
    problems: []
  }]
})

export const BalanceReport = Schema.Struct({
  partner_id: Schema.String,
  environment: Schema.Literal("live", "sandbox"),
  currency: Schema.String,
  accounts: Schema.Record({ key: Schema.Literal(...ACCOUNTS), value: Cents }).annotations({
    description: "debit-positive balance per account"
  }),
  owed_by_partner_cents: Cents,
  commission_accrued_cents: Cents,
  commission_payable_cents: Cents,
  paid_out_cents: Cents
}).annotations({
  identifier: "LedgerBalance",
  examples: [{
    partner_id: "ptn_01jcz8x7c6v5b4n3m2l1k0j9h8",
    environment: "live",
    currency: "USD",
    accounts: {
      partner_receivable: 250_000,
      partner_receivable_settled: 0,
      sales_revenue: -250_000,
      commission_expense: 25_000,
      buyer_payments: 0,
      brokerage_fee_receivable: 0,
      partner_receipts: 0,
      commission_accrued: -25_000,
      commission_payable: 0,
      payouts_in_flight: 0,
      payouts_paid: 0,
      buyer_refunds_due: 0
    },
    owed_by_partner_cents: 250_000,
    commission_accrued_cents: 25_000,
    commission_payable_cents: 0,
    paid_out_cents: 0
  }]
})

export const PayoutRunResult = Schema.Struct({
  status: Schema.Literal("completed", "skipped").annotations({ description: "skipped: another run holds the lock" }),
  payouts: Schema.Array(Schema.Struct({
    id: Schema.String,
    partner_id: Schema.String,
    environment: Schema.Literal("live", "sandbox"),
    amount_cents: Cents,
    status: Schema.Literal("pending", "paid", "failed")
  }))
}).annotations({
  identifier: "PayoutRunResult",
  examples: [{
    status: "completed" as const,
    payouts: [{
      id: PAYOUT_EXAMPLE.id,
      partner_id: "ptn_01jcz8x7c6v5b4n3m2l1k0j9h8",
      environment: "live" as const,
      amount_cents: 12000,
      status: "paid" as const
    }]
  }]
})

export const ReceiptRequest = Schema.Struct({
  partner_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)).annotations({ description: "ptn_…" }),
  environment: Schema.optional(Schema.Literal("live", "sandbox")).annotations({ description: "default live" }),
  amount_cents: PositiveAmountCents.annotations({
    description: `What the partner paid, integer USD cents, 1 to ${MAX_AMOUNT_CENTS}`
  }),
  reference: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)).annotations({
    description: "Your reference for the payment (bank transfer id…); one receipt per reference"
  })
}).annotations({
  identifier: "LedgerReceiptRequest",
  examples: [{ partner_id: "ptn_01jcz8x7c6v5b4n3m2l1k0j9h8", amount_cents: 225000, reference: "SEPA-2026-01-09-0042" }]
})

export const Receipt = Schema.Struct({
  id: Schema.String.annotations({ description: "rct_…" }),
  partner_id: Schema.String,
  environment: Schema.Literal("live", "sandbox"),
  currency: Schema.String,
  amount_cents: Cents,
  reference: Schema.String,
  created_at: Time,
  statements_paid: Schema.Array(Schema.String).annotations({
    description: "Statements this receipt moved to paid (oldest amount owed first); empty on a replay"
  }),
  owed_cents: Cents.annotations({ description: "What the partner's statements still say it owes" }),
  replayed: Schema.Boolean.annotations({ description: "true: this reference was recorded before; nothing new" })
}).annotations({
  identifier: "LedgerReceipt",
  examples: [{
    id: "rct_01jdb7h6g5f4d3s2a1q0w9e8r7",
    partner_id: "ptn_01jcz8x7c6v5b4n3m2l1k0j9h8",
    environment: "live" as const,
    currency: "USD",
    amount_cents: 225000,
    reference: "SEPA-2026-01-09-0042",
    created_at: new Date("2026-01-09T10:00:00.000Z"),
    statements_paid: [STATEMENT_EXAMPLE.id],
    owed_cents: 0,
    replayed: false
  }]
})

export class AdminMoneyApi extends HttpApiGroup.make("adminMoney")
  .add(
    HttpApiEndpoint.post("runSettlement", "/api/admin/settlements/run")
      .setUrlParams(Schema.Struct({ as_of: Schema.optional(IsoDate) }))
      .addSuccess(RunResult)
      .addError(errorWire(InvalidDateWindow))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Settles every order due as of now (or `as_of`, ISO 8601) and writes the statements; the answer's `status` is `completed`, or `skipped` when another run holds the lock. Also runs every SETTLEMENT_INTERVAL (24 h). Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(OpenApi.Summary, "Run the settlement now (as of now, or as_of)")
  )
  .add(
    HttpApiEndpoint.post("runPayouts", "/api/admin/payouts/run")
      .addSuccess(PayoutRunResult)
      .annotate(
        OpenApi.Description,
        "Pays every partner whose payable commission reaches PAYOUT_MINIMUM_CENTS, one payout each. Also runs every PAYOUT_INTERVAL (7 days). Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(OpenApi.Summary, "Run the payouts now: every payable commission at or above PAYOUT_MINIMUM_CENTS")
  )
  .add(
    HttpApiEndpoint.get("listStatements", "/api/admin/statements")
      .setUrlParams(Schema.Struct(Paging))
      .addSuccess(StatementPage)
      .addError(InvalidCursorWire)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Every partner's settlement statements, newest first; page with `limit` and `cursor`. Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(OpenApi.Summary, "Every partner's statements, newest first")
  )
  .add(
    HttpApiEndpoint.get("verifyLedger", "/api/admin/ledger/verify")
      .addSuccess(VerifyReport)
      .annotate(
        OpenApi.Description,
        "Checks the double-entry ledger: every transaction balances, and statements, commissions and payouts agree with the orders. `ok` is true when nothing is wrong; `problems` lists each discrepancy. Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(
        OpenApi.Summary,
        "Reconciliation: every transaction balances; statements, commissions and payouts match the orders"
      )
  )
  .add(
    HttpApiEndpoint.post("recordReceipt", "/api/admin/ledger/receipts")
      .setPayload(ReceiptRequest)
      .addSuccess(Receipt, { status: 201 })
      .addError(errorWire(PartnerNotFound))
      .addError(errorWire(ReceiptExceedsOwed))
      .addError(errorWire(ReceiptReferenceUsed))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Records a payment received from a partner: its receivable goes down and the statements it covers become paid. 404 for an unknown partner; 409 when it exceeds what is owed or its reference was used before. Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(
        OpenApi.Summary,
        "Record that a partner paid what its statements say it owes: the receivable goes down, covered statements become paid"
      )
  )
  .add(
    HttpApiEndpoint.get("ledgerBalance", "/api/admin/ledger/balance")
      .setUrlParams(Schema.Struct({ partner: Schema.String, env: Schema.optional(Schema.Literal("live", "sandbox")) }))
      .addSuccess(BalanceReport)
      .addError(errorWire(PartnerNotFound))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "A partner's ledger accounts and what they mean: owed by the partner, commission accrued, payable and paid out (integer cents), for `env` live (default) or sandbox. 404 for an unknown partner. Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(OpenApi.Summary, "A partner's account balances (env default live); an unknown partner is 404")
  )
  .middleware(AdminAuth)
  .addError(InternalError)
  .addError(Unauthorized)
  .annotate(OpenApi.Title, "Admin: settlement and ledger")
  .annotate(OpenApi.Description, "Bearer ADMIN_TOKEN. See docs/money.md#operators.")
{}
