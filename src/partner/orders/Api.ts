/**
 * Partner quotes, orders and refunds (scope `buy`; listing and reading orders: `search` or `buy`).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { PAYMENT_MODELS } from "../../domain/Ledger.js"
import { AmountCents } from "../../domain/Money.js"
import { OrderStatusSchema } from "../../domain/OrderState.js"
import { ListingHeld } from "../../market/Errors.js"
import { documentedAt } from "../../platform/http/ApiAnnotations.js"
import { BadRequest, Conflict, errorWire, InternalError } from "../../platform/http/Errors.js"
import { IdempotencyKey, MissingIdempotencyKey } from "../../platform/http/IdempotencyKey.js"
import { InvalidCursorWire } from "../../platform/http/PageCursor.js"
import { PartnerAuth, requiresScope } from "../Auth.js"
import { IsoDate } from "../Common.js"
import { InvalidDateWindow, MalformedDomain, MalformedParameter } from "../Errors.js"
import { DomainNotListed } from "../inventory/Errors.js"
import { TRANSFER_STATES } from "./Deliveries.js"
import {
  CurrencyMismatch,
  DomainNotAvailable,
  InvalidQuote,
  NoBuyNowPrice,
  OrderMoveNotAllowed,
  OrderNotFound,
  PriceMismatch,
  QuoteAlreadyUsed,
  QuoteExpired
} from "./Errors.js"

const Email = Schema.String.pipe(
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an e-mail address" }),
  Schema.maxLength(254)
)
const Url = Schema.String.pipe(
  Schema.filter((s) => {
    try {
      const u = new URL(s)
      return u.protocol === "https:" || u.protocol === "http:" ? undefined : "must be an http(s) URL"
    } catch {
      return "must be an absolute URL"
    }
  })
)

export const QuoteRequest = Schema.Struct({
  domain: Schema.String.annotations({ description: "A listed domain of the credential's inventory" })
}).annotations({ examples: [{ domain: "example.com" }] })

export const Quote = Schema.Struct({
  quote_id: Schema.String.annotations({ description: "Signed quote token; pass it to POST /orders" }),
  domain: Schema.String,
  price_cents: Schema.Int,
  currency: Schema.String,
  expires_at: Schema.String.annotations({
    description: "RFC 3339; 10 minutes after issue. Until then the domain is reserved for you."
  })
}).annotations({
  identifier: "PartnerQuote",
  examples: [{
    quote_id: "qt_eyJxIjoicXRfMDFqZDNrOXcybTd4NHA1cjhzNnQwdjF5MnoifQ.k3Jq9c2VbT0xR7mW",
    domain: "example.com",
    price_cents: 250000,
    currency: "USD",
    expires_at: "2026-01-01T12:10:00.000Z"
  }]
})

export const OrderRequest = Schema.Struct({
  domain: Schema.String.pipe(Schema.minLength(1)),
  expected_price: AmountCents.annotations({
    description: "Integer USD cents (0 to 10^12); must equal the listing (or quoted) price"
  }),
  currency: Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/, { message: () => "must be an ISO 4217 code such as USD" })),
  external_payment_ref: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)).annotations({
    description: "Your payment reference for the buyer's charge"
  }),
  buyer: Schema.Struct({
    email: Email,
    name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
    country: Schema.optional(
      Schema.String.pipe(Schema.pattern(/^[A-Z]{2}$/, { message: () => "must be an ISO 3166-1 alpha-2 code" }))
    )
  }),
  quote_id: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  return_url: Schema.optional(Url),
  cancel_url: Schema.optional(Url)
}).annotations({
  identifier: "PartnerOrderRequest",
  examples: [{
    domain: "example.com",
    expected_price: 250000,
    currency: "USD",
    external_payment_ref: "pay_8f3a2c",
    buyer: { email: "buyer@example.org", name: "Ada Buyer", country: "NL" }
  }]
})

/** The hand-written order of the document's examples (one order, seen by every order operation). */
const ORDER_EXAMPLE = {
  public_id: "ord_01jd3k9x0a1b2c3d4e5f6g7h8j",
  domain: "example.com",
  status: "EXTERNALLY_PAID",
  sale_price_cents: 250000,
  currency: "USD",
  environment: "live",
  external_payment_ref: "pay_8f3a2c",
  quote_id: null,
  buyer: { email: "buyer@example.org", name: "Ada Buyer", country: "NL" },
  return_url: null,
  cancel_url: null,
  created_at: "2026-01-01T12:00:00.000Z",
  updated_at: "2026-01-01T12:00:00.000Z",
  payment_model: "partner_collected",
  commission_cents: 25000,
  brokerage: null
} as const

/** How an order was sold (src/domain/Ledger.ts): who collected the buyer's money. */
export const PaymentModelSchema = Schema.Literal(...PAYMENT_MODELS).annotations({
  title: "PaymentModel",
  description:
    "partner_collected: you charged the buyer (POST /orders) and keep your commission; hosted_checkout: your checkout session, paid on the service's page; referral: a /buy/ sale through your link; brokerage: a won brokerage case (the sale is the service's fee)"
})

export const Order = Schema.Struct({
  public_id: Schema.String,
  domain: Schema.String,
  status: OrderStatusSchema,
  sale_price_cents: Schema.Int,
  currency: Schema.String,
  environment: Schema.Literal("live", "sandbox"),
  external_payment_ref: Schema.String,
  quote_id: Schema.NullOr(Schema.String),
  buyer: Schema.Struct({
    email: Schema.String,
    name: Schema.optional(Schema.String),
    country: Schema.optional(Schema.String)
  }),
  return_url: Schema.NullOr(Schema.String),
  cancel_url: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String,
  payment_model: PaymentModelSchema,
  commission_cents: Schema.Int.annotations({
    description:
      "Your commission on this sale (the rate in force when it was recorded): retained by you on a partner-collected sale, accrued and paid out on the others"
  }),
  brokerage: Schema.NullOr(Schema.Struct({
    case_id: Schema.String.annotations({ description: "The brokerage case (brk_…)" }),
    deal_price_cents: Schema.NullOr(Schema.Int).annotations({
      description: "The price buyer and seller agreed"
    }),
    fee_cents: Schema.Int.annotations({
      description: "The service's fee on the deal (the order's sale_price_cents); your commission is your share of it"
    })
  })).annotations({
    description: "Brokerage orders only (payment_model brokerage): the deal and the fee apart; else null"
  })
}).annotations({ identifier: "PartnerOrder", examples: [ORDER_EXAMPLE] })

export const TimelineEntry = Schema.Struct({
  at: Schema.String,
  type: Schema.Literal("status", "transfer_step"),
  status: Schema.NullOr(Schema.String),
  from_status: Schema.NullOr(Schema.String),
  step: Schema.NullOr(Schema.String).annotations({ description: "push_initiated, delivered" }),
  event_id: Schema.NullOr(Schema.String),
  actor: Schema.String,
  note: Schema.NullOr(Schema.String)
}).annotations({ identifier: "PartnerOrderTimelineEntry" })

export const OrderDetail = Schema.Struct({
  ...Order.fields,
  transfer: Schema.Struct({
    status: Schema.Literal("not_started", "in_progress", "completed", "aborted"),
    started_at: Schema.NullOr(Schema.String),
    completed_at: Schema.NullOr(Schema.String),
    state: Schema.Literal(...TRANSFER_STATES).annotations({
      description:
        "The delivery (docs/fulfilment.md): pending (not started), auth_code_ready (retrieve the code), pushing, awaiting_registrar, completed, failed"
    }),
    method: Schema.NullOr(Schema.Literal("push", "auth_code")).annotations({
      description: "push to target_account at the same registrar, or auth_code; null until chosen or started"
    }),
    target: Schema.NullOr(Schema.String).annotations({ description: "The push target account, if any" }),
    attempts: Schema.Int.annotations({ description: "Failed registrar attempts so far" }),
    last_error: Schema.NullOr(Schema.String),
    updated_at: Schema.String
  }),
  timeline: Schema.Array(TimelineEntry)
}).annotations({
  identifier: "PartnerOrderDetail",
  examples: [{
    ...ORDER_EXAMPLE,
    transfer: {
      status: "not_started",
      started_at: null,
      completed_at: null,
      state: "pending",
      method: null,
      target: null,
      attempts: 0,
      last_error: null,
      updated_at: "2026-01-01T12:00:00.000Z"
    },
    timeline: [{
      at: "2026-01-01T12:00:00.000Z",
      type: "status",
      status: "EXTERNALLY_PAID",
      from_status: null,
      step: null,
      event_id: "evt_01jd3k9x0a1b2c3d4e5f6g7h8j",
      actor: "partner",
      note: null
    }]
  }]
})

export const OrderPage = Schema.Struct({
  orders: Schema.Array(Order),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as cursor for the next page; null at the end"
  })
}).annotations({ identifier: "PartnerOrderPage", examples: [{ orders: [ORDER_EXAMPLE], next_cursor: null }] })

export const RefundRequest = Schema.Struct({
  order_id: Schema.String.annotations({ description: "The order's public_id" }),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(500)))
}).annotations({
  identifier: "PartnerRefundRequest",
  examples: [{ order_id: "ord_01jd3k9x0a1b2c3d4e5f6g7h8j", reason: "buyer cancelled" }]
})

export const Refund = Schema.Struct({
  refund_id: Schema.String,
  order_id: Schema.String,
  amount_cents: Schema.Int,
  currency: Schema.String,
  status: Schema.Literal("REFUNDED"),
  created_at: Schema.String,
  order: Order
}).annotations({
  identifier: "PartnerRefund",
  examples: [{
    refund_id: "rf_01jd3kb2c4d6e8f0g2h4j6k8m0",
    order_id: "ord_01jd3k9x0a1b2c3d4e5f6g7h8j",
    amount_cents: 250000,
    currency: "USD",
    status: "REFUNDED",
    created_at: "2026-01-01T13:00:00.000Z",
    order: { ...ORDER_EXAMPLE, status: "REFUNDED", updated_at: "2026-01-01T13:00:00.000Z" }
  }]
})

export class PartnerOrdersApi extends HttpApiGroup.make("partnerOrders")
  .add(
    HttpApiEndpoint.post("createQuote", "/api/partner/v1/quotes")
      .setPayload(QuoteRequest)
      .addSuccess(Quote, { status: 201 })
      .addError(errorWire(MalformedDomain))
      .addError(errorWire(DomainNotListed))
      .addError(errorWire(DomainNotAvailable))
      .addError(errorWire(NoBuyNowPrice))
      .addError(errorWire(ListingHeld))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Fixes the price of a listed domain for 10 minutes and reserves it for you: pass the quote's id to POST /orders. 404 when not listed; 409 when it is not available, has no buy-now price or is held for another buyer. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Firm price plus a 10-minute reservation")
      .pipe(requiresScope("buy"), documentedAt("/docs/partner.md#quotes"))
  )
  .add(
    HttpApiEndpoint.post("createOrder", "/api/partner/v1/orders")
      .setPayload(OrderRequest)
      .setHeaders(Schema.Struct({
        // Its absence is the documented 400 missing_idempotency_key (platform/http/IdempotencyKey.ts).
        "idempotency-key": IdempotencyKey.annotations({
          description: "Required: the same key on every retry of this order (1-255 visible ASCII characters)"
        })
      }))
      .addSuccess(Order, { status: 201 })
      .addError(errorWire(MissingIdempotencyKey))
      .addError(errorWire(MalformedParameter))
      .addError(errorWire(MalformedDomain))
      .addError(errorWire(InvalidQuote))
      .addError(errorWire(CurrencyMismatch))
      .addError(errorWire(DomainNotListed))
      .addError(errorWire(DomainNotAvailable))
      .addError(errorWire(ListingHeld))
      .addError(errorWire(NoBuyNowPrice))
      .addError(errorWire(QuoteAlreadyUsed))
      .addError(errorWire(QuoteExpired))
      .addError(errorWire(PriceMismatch))
      .addError(BadRequest)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Record a partner-collected sale")
      .annotate(
        OpenApi.Description,
        "Idempotency-Key header required. Same key and body: the stored 201 again with Idempotent-Replayed: true. Same key, other body (or the first still in flight): 409 conflict."
      )
      .pipe(requiresScope("buy"), documentedAt("/docs/partner.md#orders"))
  )
  .add(
    HttpApiEndpoint.get("listOrders", "/api/partner/v1/orders")
      .setUrlParams(Schema.Struct({
        status: Schema.optional(OrderStatusSchema),
        payment_model: Schema.optional(PaymentModelSchema),
        domain: Schema.optional(Schema.String),
        from: Schema.optional(IsoDate),
        to: Schema.optional(IsoDate),
        limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))).annotations({
          description: "1–100, default 25"
        }),
        cursor: Schema.optional(Schema.String)
      }))
      .addSuccess(OrderPage)
      .addError(errorWire(InvalidDateWindow))
      .addError(errorWire(MalformedDomain))
      .addError(InvalidCursorWire)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Your orders, newest first, filtered by status, payment model, domain and a creation window (`from`/`to`, ISO 8601); `limit` and the opaque `cursor` of the previous page page through them. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "List orders (newest first) with filters and cursor pagination")
      .pipe(requiresScope("search", "buy"), documentedAt("/docs/partner.md#list-orders"))
  )
  .add(
    HttpApiEndpoint.get("getOrder")`/api/partner/v1/orders/${HttpApiSchema.param("public_id", Schema.String)}`
      .addSuccess(OrderDetail)
      .addError(errorWire(OrderNotFound))
      .annotate(
        OpenApi.Description,
        "One of your orders by its public id (`ord_…`), with its current status and the timeline of every status change. Another partner's order is 404. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Order detail with its status and transfer timeline")
      .pipe(requiresScope("search", "buy"), documentedAt("/docs/partner.md#order-detail"))
  )
  .add(
    HttpApiEndpoint.post("createRefund", "/api/partner/v1/refunds")
      .setPayload(RefundRequest)
      .addSuccess(Refund, { status: 201 })
      .addError(errorWire(OrderNotFound))
      .addError(errorWire(OrderMoveNotAllowed))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Refunds an order you collected the payment for, while it has not reached TRANSFER_COMPLETED; emits `order.refunded`. 404 for an unknown order, 409 when its status does not allow a refund. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Refund a partner-collected order (only before TRANSFER_COMPLETED)")
      .pipe(requiresScope("buy"), documentedAt("/docs/partner.md#refunds"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: quotes, orders, refunds")
  .annotate(OpenApi.Description, "HMAC-signed (see docs/partner.md).")
{}
