/**
 * The rows of the money tables as the money repository decodes them (money columns are `bigint`,
 * numbers through the driver's int8 parser on both databases: platform/db/Database.ts), the
 * requests its queries share, and the day arithmetic of the sales-history totals.
 */
import { Schema } from "effect"
import { PAYMENT_MODELS } from "../../domain/Ledger.js"
import { ORDER_STATUSES } from "../../domain/OrderState.js"

export const Environment = Schema.Literal("live", "sandbox")
export const PaymentModel = Schema.Literal(...PAYMENT_MODELS)
export const OrderStatus = Schema.Literal(...ORDER_STATUSES)

export const StatementRow = Schema.Struct({
  id: Schema.String,
  run_id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  currency: Schema.String,
  period_start: Schema.DateFromSelf,
  period_end: Schema.DateFromSelf,
  orders_count: Schema.Number,
  gross_sold_cents: Schema.Number,
  commission_retained_cents: Schema.Number,
  amount_owed_cents: Schema.Number,
  commission_payable_cents: Schema.Number,
  refunds_cents: Schema.Number,
  status: Schema.Literal("closed", "paid"),
  created_at: Schema.DateFromSelf
})
export type StatementRow = typeof StatementRow.Type

export const LineRow = Schema.Struct({
  order_id: Schema.String,
  statement_id: Schema.String,
  domain: Schema.String,
  payment_model: PaymentModel,
  sale_price_cents: Schema.Number,
  commission_cents: Schema.Number,
  owed_cents: Schema.Number
})
export type LineRow = typeof LineRow.Type

export const TransactionRow = Schema.Struct({
  id: Schema.String,
  order_id: Schema.String,
  domain: Schema.String,
  payment_model: PaymentModel,
  status: OrderStatus,
  sale_price_cents: Schema.Number,
  commission_cents: Schema.Number,
  currency: Schema.String,
  created_at: Schema.DateFromSelf,
  settled_at: Schema.NullOr(Schema.DateFromSelf)
})
export type TransactionRow = typeof TransactionRow.Type

export const PayoutSource = Schema.Literal("checkout", "referral", "brokerage", "mixed")

export const PayoutRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  amount_cents: Schema.Number,
  currency: Schema.String,
  status: Schema.Literal("pending", "paid", "failed"),
  method: Schema.String,
  source: PayoutSource,
  provider_ref: Schema.NullOr(Schema.String),
  failure: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  paid_at: Schema.NullOr(Schema.DateFromSelf)
})
export type PayoutRow = typeof PayoutRow.Type

export const ReceiptRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  currency: Schema.String,
  amount_cents: Schema.Number,
  reference: Schema.String,
  created_at: Schema.DateFromSelf
})
export type ReceiptRow = typeof ReceiptRow.Type

export const Totals = Schema.Struct({ count: Schema.Number, gmv_cents: Schema.Number, commission_cents: Schema.Number })
export type Totals = typeof Totals.Type

export const Owner = Schema.Struct({ partnerId: Schema.String, environment: Environment })
export type Owner = typeof Owner.Type

/** Which money a statement, a payout or a settlement group is about. */
export const Group = Schema.Struct({ partner_id: Schema.String, environment: Environment, currency: Schema.String })
export type Group = typeof Group.Type

export const TransactionFilters = Schema.Struct({
  from: Schema.optional(Schema.DateFromSelf),
  to: Schema.optional(Schema.DateFromSelf),
  status: Schema.optional(OrderStatus),
  paymentModel: Schema.optional(PaymentModel)
})
export type TransactionFilters = typeof TransactionFilters.Type

export const Page = { beforeId: Schema.NullOr(Schema.String), limit: Schema.Number }

export const NewStatement = Schema.Struct({
  ...StatementRow.pick(
    "id",
    "run_id",
    "partner_id",
    "environment",
    "currency",
    "period_start",
    "period_end",
    "orders_count",
    "gross_sold_cents",
    "commission_retained_cents",
    "amount_owed_cents",
    "commission_payable_cents",
    "refunds_cents"
  ).fields
})

export const LINE_COLUMNS = [
  ["order_id", "text"],
  ["statement_id", "text"],
  ["domain", "text"],
  ["payment_model", "text"],
  ["sale_price_cents", "bigint"],
  ["commission_cents", "bigint"],
  ["owed_cents", "bigint"]
] as const

export const NewRun = Schema.Struct({
  id: Schema.String,
  trigger: Schema.String,
  as_of: Schema.DateFromSelf,
  cutoff: Schema.DateFromSelf
})

export const NewPayout = Schema.Struct({
  ...PayoutRow.pick("id", "partner_id", "environment", "amount_cents", "currency", "method", "source").fields
})

export const DAY_MS = 86_400_000
export const floorDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS)
export const ceilDay = (d: Date) => new Date(Math.ceil(d.getTime() / DAY_MS) * DAY_MS)
export const isoDay = (d: Date) => d.toISOString().slice(0, 10)

export const Total = Schema.Struct({ total: Schema.Number })
