/**
 * Money endpoints of the partner side (HMAC-signed): statements, sales history and payouts, with
 * the money and time schemas both sides share; the operator side is AdminApi.ts.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { PAYMENT_MODELS } from "../../domain/Ledger.js"
import { OrderStatusSchema } from "../../domain/OrderState.js"
import { documentedAt } from "../../platform/http/ApiAnnotations.js"
import { BadRequest, errorWire, InternalError } from "../../platform/http/Errors.js"
import { InvalidCursorWire } from "../../platform/http/PageCursor.js"
import { PartnerAuth, requiresScope } from "../Auth.js"
import { IsoDate, Paging } from "../Common.js"
import { InvalidDateWindow, NotAnAffiliate } from "../Errors.js"
import { SettlementNotFound } from "./Errors.js"

export const Cents = Schema.Int.annotations({ description: "Integer USD cents" })
/** A time: a `Date` in the handlers, RFC 3339 UTC with milliseconds (`toISOString`) on the wire. */
export const time = (description = "RFC 3339 UTC with milliseconds") =>
  Schema.Date.annotations({ jsonSchema: { type: "string", format: "date-time", description } })
export const Time = time()
export const PaymentModelSchema = Schema.Literal(...PAYMENT_MODELS).annotations({ title: "PaymentModel" })

/** The statement the examples show: one week, one partner-collected sale of $2,500. */
const LINE_EXAMPLE = {
  order_id: "ord_01jd3k9x0a1b2c3d4e5f6g7h8j",
  domain: "example.com",
  payment_model: "partner_collected" as const,
  sale_price_cents: 250000,
  commission_cents: 25000,
  owed_cents: 225000
}
export const STATEMENT_EXAMPLE = {
  id: "stl_01jd9q2w3e4r5t6y7u8i9o0p1a",
  period_start: new Date("2026-01-01T00:00:00.000Z"),
  period_end: new Date("2026-01-08T00:00:00.000Z"),
  currency: "USD",
  orders_count: 1,
  gross_sold_cents: 250000,
  commission_retained_cents: 25000,
  amount_owed_cents: 225000,
  commission_payable_cents: 0,
  refunds_cents: 0,
  status: "closed" as const,
  created_at: new Date("2026-01-08T00:05:00.000Z")
}
export const PAYOUT_EXAMPLE = {
  id: "po_01jda1s2d3f4g5h6j7k8l9z0x1",
  amount_cents: 12000,
  currency: "USD",
  status: "paid" as const,
  method: "sandbox",
  created_at: new Date("2026-01-08T01:00:00.000Z"),
  paid_at: new Date("2026-01-08T01:00:02.000Z"),
  source: "checkout" as const
}

export const StatementLine = Schema.Struct({
  order_id: Schema.String,
  domain: Schema.String,
  payment_model: PaymentModelSchema,
  sale_price_cents: Cents,
  commission_cents: Cents,
  owed_cents: Cents.annotations({ description: "sale − commission for a partner-collected sale, else 0" })
}).annotations({ identifier: "SettlementLine" })

export const Statement = Schema.Struct({
  id: Schema.String.annotations({ description: "stl_…" }),
  period_start: Time,
  period_end: Time,
  currency: Schema.String,
  orders_count: Schema.Int,
  gross_sold_cents: Cents.annotations({ description: "Σ lines.sale_price_cents" }),
  commission_retained_cents: Cents.annotations({
    description: "Σ commission of partner-collected lines (kept by you)"
  }),
  amount_owed_cents: Cents.annotations({
    description: "gross of partner-collected lines − their commission (you owe the service)"
  }),
  commission_payable_cents: Cents.annotations({
    description: "commission on service-collected lines, now payable to you (paid by a payout)"
  }),
  refunds_cents: Cents.annotations({ description: "refunds recorded during the period" }),
  status: Schema.Literal("closed", "paid").annotations({
    description:
      "paid: paid payouts cover its payable commission (statements are covered oldest first); a statement with nothing payable stays closed"
  }),
  created_at: Time,
  lines: Schema.optional(Schema.Array(StatementLine))
}).annotations({
  identifier: "SettlementStatement",
  examples: [{ ...STATEMENT_EXAMPLE, lines: [LINE_EXAMPLE] }]
})

export const StatementPage = Schema.Struct({
  settlements: Schema.Array(Statement),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({
  identifier: "SettlementPage",
  examples: [{ settlements: [STATEMENT_EXAMPLE], next_cursor: null }]
})

export const Transaction = Schema.Struct({
  id: Schema.String.annotations({ description: "The ledger transaction that recorded the sale (ltx_…)" }),
  order_id: Schema.String,
  domain: Schema.String,
  payment_model: PaymentModelSchema,
  status: OrderStatusSchema,
  sale_price_cents: Cents,
  commission_cents: Cents,
  currency: Schema.String,
  created_at: Time,
  settled_at: Schema.NullOr(Time)
}).annotations({ identifier: "PartnerTransaction" })

export const TransactionPage = Schema.Struct({
  transactions: Schema.Array(Transaction),
  totals: Schema.Struct({ count: Schema.Int, gmv_cents: Cents, commission_cents: Cents }).annotations({
    description: "Over every row matching the filters, not one page"
  }),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({
  identifier: "PartnerTransactionPage",
  examples: [{
    transactions: [{
      id: "ltx_01jd3k9x5m6n7b8v9c0x1z2a3s",
      order_id: LINE_EXAMPLE.order_id,
      domain: LINE_EXAMPLE.domain,
      payment_model: "partner_collected" as const,
      status: "SETTLED" as const,
      sale_price_cents: 250000,
      commission_cents: 25000,
      currency: "USD",
      created_at: new Date("2026-01-01T12:00:00.000Z"),
      settled_at: new Date("2026-01-08T00:05:00.000Z")
    }],
    totals: { count: 1, gmv_cents: 250000, commission_cents: 25000 },
    next_cursor: null
  }]
})

export const Payout = Schema.Struct({
  id: Schema.String.annotations({ description: "po_…" }),
  amount_cents: Cents,
  currency: Schema.String,
  status: Schema.Literal("pending", "paid", "failed"),
  method: Schema.String.annotations({ description: "sandbox or stripe_transfer" }),
  created_at: Time,
  paid_at: Schema.NullOr(Time),
  source: Schema.Literal("checkout", "referral", "brokerage", "mixed")
}).annotations({ identifier: "Payout" })

export const PayoutPage = Schema.Struct({
  payouts: Schema.Array(Payout),
  total_paid_cents: Cents,
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({
  identifier: "PayoutPage",
  examples: [{ payouts: [PAYOUT_EXAMPLE], total_paid_cents: 12000, next_cursor: null }]
})

/** A CSV export: `text/csv; charset=utf-8`, a header row, CRLF line ends (docs/partner.md#csv-exports). */
export const CsvText = HttpApiSchema.Text({ contentType: "text/csv; charset=utf-8" }).annotations({
  description: "CSV (RFC 4180) with a header row; text cells that start with = + - @ are prefixed with '"
})

const TransactionFilterParams = {
  from: Schema.optional(IsoDate),
  to: Schema.optional(IsoDate),
  status: Schema.optional(OrderStatusSchema),
  payment_model: Schema.optional(PaymentModelSchema)
}

export class PartnerMoneyApi extends HttpApiGroup.make("partnerMoney")
  .add(
    HttpApiEndpoint.get("listSettlements", "/api/partner/v1/settlements")
      .setUrlParams(Schema.Struct({ from: Schema.optional(IsoDate), to: Schema.optional(IsoDate), ...Paging }))
      .addSuccess(StatementPage)
      .addError(errorWire(InvalidDateWindow))
      .addError(InvalidCursorWire)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Your settlement statements, newest first, filtered by the statement's period end (`from`/`to`); page with `limit` and `cursor`. Amounts are integer cents. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Settlement statements, newest first (filters on period_end)")
      .pipe(requiresScope("buy"), documentedAt("/docs/money.md#statements"))
  )
  .add(
    HttpApiEndpoint.get("getSettlement")`/api/partner/v1/settlements/${HttpApiSchema.param("id", Schema.String)}`
      .addSuccess(Statement)
      .addError(errorWire(SettlementNotFound))
      .annotate(
        OpenApi.Description,
        "One statement (`stl_…`) with its totals and its lines, one per settled order. Another partner's statement is 404. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "One statement with its lines")
      .pipe(requiresScope("buy"), documentedAt("/docs/money.md#statements"))
  )
  .add(
    HttpApiEndpoint.get("exportSettlement")`/api/partner/v1/settlements/${HttpApiSchema.param("id", Schema.String)}.csv`
      .addSuccess(CsvText)
      .addError(errorWire(SettlementNotFound))
      .annotate(
        OpenApi.Description,
        "The lines of one statement as a CSV file (header row, one row per settled order), for accounting tools. 404 for an unknown statement. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "One statement's lines as CSV (`GET /settlements/stl_….csv`)")
      .pipe(requiresScope("buy"), documentedAt("/docs/partner.md#csv-exports"))
  )
  .add(
    HttpApiEndpoint.get("exportTransactions", "/api/partner/v1/transactions.csv")
      .setUrlParams(Schema.Struct(TransactionFilterParams))
      .addSuccess(CsvText)
      .addError(errorWire(InvalidDateWindow))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Every sale matching the filters of GET /api/partner/v1/transactions (window, status, payment model) as one CSV file, without paging. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "The sales history as CSV: every row matching the filters of GET /transactions")
      .pipe(requiresScope("report"), documentedAt("/docs/partner.md#csv-exports"))
  )
  .add(
    HttpApiEndpoint.get("listTransactions", "/api/partner/v1/transactions")
      .setUrlParams(Schema.Struct({
        from: Schema.optional(IsoDate),
        to: Schema.optional(IsoDate),
        status: Schema.optional(OrderStatusSchema),
        payment_model: Schema.optional(PaymentModelSchema),
        ...Paging
      }))
      .addSuccess(TransactionPage)
      .addError(errorWire(InvalidDateWindow))
      .addError(InvalidCursorWire)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Your sales, newest first, filtered by window, status and payment model, with totals (GMV, commission) over the whole filter, not only the page. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Sales history with totals (GMV, commission) over the whole filter")
      .pipe(requiresScope("report"), documentedAt("/docs/money.md#transactions"))
  )
  .add(
    HttpApiEndpoint.get("listPayouts", "/api/partner/v1/payouts")
      .setUrlParams(Schema.Struct(Paging))
      .addSuccess(PayoutPage)
      .addError(InvalidCursorWire)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Payouts of the commission you earned on sales the service collected, newest first, each with its amount, status and the commissions it pays. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Payouts of commission earned on service-collected sales")
      .pipe(requiresScope("report"), documentedAt("/docs/money.md#payouts"))
  )
  .add(
    HttpApiEndpoint.get("listMyPayouts", "/api/partner/v1/me/payouts")
      .setUrlParams(Schema.Struct(Paging))
      .addSuccess(PayoutPage)
      .addError(InvalidCursorWire)
      .addError(errorWire(NotAnAffiliate))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "As an affiliate: payouts of your referral commission, newest first. 403 when your account is not an affiliate. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Affiliate: payouts of referral commission")
      .pipe(requiresScope("report"), documentedAt("/docs/money.md#payouts"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: settlements, transactions, payouts")
  .annotate(OpenApi.Description, "HMAC-signed (see docs/partner.md). Money rules: docs/money.md.")
{}
