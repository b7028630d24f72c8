/**
 * The rows of partner orders, their timeline and the listing an order holds, as the order
 * repository decodes them (money columns are `bigint`, numbers through the driver's int8 parser on
 * both databases), and the requests its queries take.
 */
import { Schema } from "effect"
import { PAYMENT_MODELS, type PaymentModel } from "../../domain/Ledger.js"
import { ORDER_STATUSES, type OrderStatus } from "../../domain/OrderState.js"
import type { PartnerEnvironment } from "../Auth.js"

export const Environment = Schema.Literal("live", "sandbox")
export const Status = Schema.Literal(...ORDER_STATUSES)

export const Buyer = Schema.Struct({
  email: Schema.String,
  name: Schema.optional(Schema.String),
  country: Schema.optional(Schema.String)
})

export const OrderRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  credential_id: Schema.String,
  environment: Environment,
  listing_id: Schema.String,
  domain: Schema.String,
  status: Status,
  sale_price_cents: Schema.Number,
  currency: Schema.String,
  external_payment_ref: Schema.String,
  quote_id: Schema.NullOr(Schema.String),
  buyer: Buyer,
  return_url: Schema.NullOr(Schema.String),
  cancel_url: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  transfer_completed_at: Schema.NullOr(Schema.DateFromSelf),
  settled_at: Schema.NullOr(Schema.DateFromSelf),
  refunded_at: Schema.NullOr(Schema.DateFromSelf),
  /** Who collected the buyer's money (src/domain/Ledger.ts); partner orders: partner_collected. */
  payment_model: Schema.Literal(...PAYMENT_MODELS),
  /** The partner's commission rate when the order was created, frozen; and its amount. */
  commission_bps: Schema.Number,
  commission_cents: Schema.Number,
  /** Brokerage: the price buyer and seller agreed (the sale is the service's fee on it); else null. */
  deal_price_cents: Schema.NullOr(Schema.Number)
})
export type OrderRow = typeof OrderRow.Type

export const TimelineRow = Schema.Struct({
  seq: Schema.Number,
  kind: Schema.Literal("status", "transfer_step"),
  status: Schema.NullOr(Schema.String),
  from_status: Schema.NullOr(Schema.String),
  step: Schema.NullOr(Schema.String),
  event_id: Schema.NullOr(Schema.String),
  actor: Schema.String,
  note: Schema.NullOr(Schema.String),
  at: Schema.DateFromSelf
})
export type TimelineRow = typeof TimelineRow.Type

/** The listing an order is about, read under its row lock, with what the order's checks need. */
export const ListingForOrder = Schema.Struct({
  id: Schema.String,
  domain: Schema.String,
  bin_price_cents: Schema.NullOr(Schema.Number),
  currency: Schema.String,
  status: Schema.Literal("active", "pending", "sold", "withdrawn"),
  locked: Schema.Boolean,
  held_by: Schema.NullOr(Schema.String),
  held_until: Schema.NullOr(Schema.DateFromSelf),
  open_order: Schema.NullOr(Schema.String),
  quote_found: Schema.Boolean,
  quote_used_by_order: Schema.NullOr(Schema.String)
})
export type ListingForOrder = typeof ListingForOrder.Type

export const DueGroup = Schema.Struct({ partner_id: Schema.String, environment: Environment, currency: Schema.String })

export interface OrderFilters {
  readonly status?: OrderStatus | undefined
  readonly paymentModel?: PaymentModel | undefined
  readonly domain?: string | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}

export const Filters = {
  status: Schema.optional(Status),
  paymentModel: Schema.optional(Schema.Literal(...PAYMENT_MODELS)),
  domain: Schema.optional(Schema.String),
  from: Schema.optional(Schema.DateFromSelf),
  to: Schema.optional(Schema.DateFromSelf)
}

export const PartnerPage = Schema.Struct({
  ...Filters,
  partnerId: Schema.String,
  environment: Environment,
  beforeId: Schema.NullOr(Schema.String),
  limit: Schema.Number
})

export const OperatorPage = Schema.Struct({
  ...Filters,
  partnerId: Schema.optional(Schema.String),
  environment: Schema.optional(Environment),
  limit: Schema.Number
})

export const NewQuote = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  environment: Environment,
  listingId: Schema.String,
  domain: Schema.String,
  priceCents: Schema.Number,
  currency: Schema.String,
  expiresAt: Schema.DateFromSelf
})

export const NewTimeline = Schema.Struct({
  orderId: Schema.String,
  kind: Schema.Literal("status", "transfer_step"),
  status: Schema.optional(Schema.NullOr(Schema.String)),
  fromStatus: Schema.optional(Schema.NullOr(Schema.String)),
  step: Schema.optional(Schema.NullOr(Schema.String)),
  eventId: Schema.optional(Schema.NullOr(Schema.String)),
  actor: Schema.String,
  note: Schema.optional(Schema.NullOr(Schema.String))
})

export const NewRefund = Schema.Struct({
  id: Schema.String,
  orderId: Schema.String,
  partnerId: Schema.String,
  amountCents: Schema.Number,
  reason: Schema.NullOr(Schema.String)
})

export const DueOrders = Schema.Struct({
  partnerId: Schema.String,
  environment: Environment,
  currency: Schema.String,
  cutoff: Schema.DateFromSelf,
  onlyId: Schema.optional(Schema.String)
})

export const NewBrokerageOrder = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  credentialId: Schema.String,
  environment: Environment,
  caseId: Schema.String,
  domain: Schema.String,
  feeCents: Schema.Number,
  dealPriceCents: Schema.Number,
  shareBps: Schema.Number,
  currency: Schema.String,
  buyerEmail: Schema.String
})

/** A new order's fields (the commission rate and amount come from the partner row). */
export interface NewOrder {
  readonly id: string
  readonly partnerId: string
  readonly credentialId: string
  readonly environment: PartnerEnvironment
  readonly listingId: string
  readonly domain: string
  readonly status: OrderStatus
  readonly salePriceCents: number
  readonly currency: string
  readonly externalPaymentRef: string
  readonly quoteId: string | null
  readonly buyer: unknown
  readonly returnUrl: string | null
  readonly cancelUrl: string | null
  /** Hosted checkout and referral sales (src/checkout); default partner_collected. */
  readonly paymentModel?: PaymentModel
  readonly checkoutSessionId?: string | null
  readonly referralLinkId?: string | null
}
