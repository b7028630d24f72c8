/**
 * The SDK's public shapes, named. Every one is taken from `openapi.ts`, which is generated from
 * the service's OpenAPI document (`npm run -s generate:partner-kit`), so a type here is what the
 * wire carries: a new order status or field arrives with the next generation, not by hand.
 */
import type { components, operations } from "./openapi.js"

type Schemas = components["schemas"]
export type OperationId = keyof operations

type Responses<K extends OperationId> = operations[K]["responses"]
/** The JSON body of an operation's success response. */
export type Ok<K extends OperationId> = {
  [S in keyof Responses<K>]: S extends 200 | 201 | 202
    ? Responses<K>[S] extends { readonly content: { readonly "application/json": infer A } } ? A : never
    : never
}[keyof Responses<K>]
/** The JSON request body of an operation. */
export type Body<K extends OperationId> = NonNullable<operations[K]["requestBody"]> extends
  { readonly content: { readonly "application/json": infer B } } ? B : never
/** An operation's query parameters; `limit` may be given as a number. */
export type Query<K extends OperationId> = NonNullable<operations[K]["parameters"]["query"]> extends infer Q ? {
    readonly [P in keyof Q]?: (P extends "limit" ? number | string : Exclude<Q[P], undefined>) | undefined
  }
  : never
/** Query parameters of a paged list without its cursor (the iterators page for you). */
export type Filter<K extends OperationId> = Omit<Query<K>, "cursor">

// Inventory
export type SearchResponse = Schemas["PartnerSearchResponse"]
export type SearchResult = Schemas["PartnerSearchResult"]
export type DomainDetail = Schemas["PartnerDomainDetail"]
export type Availability = Schemas["PartnerAvailability"]
export type Pricing = Schemas["PartnerPricing"]

// Quotes, orders, refunds
export type Quote = Ok<"partnerOrders.createQuote">
export type OrderRequest = Schemas["PartnerOrderRequest"]
export type Buyer = OrderRequest["buyer"]
export type Order = Schemas["PartnerOrder"]
/** Every order status, `PAID` (a hosted-checkout or referral sale) included. */
export type OrderStatus = Order["status"]
export type PaymentModel = Order["payment_model"]
export type OrderDetail = Schemas["PartnerOrderDetail"]
export type OrderPage = Schemas["PartnerOrderPage"]
export type OrderFilter = Filter<"partnerOrders.listOrders">
export type RefundRequest = Schemas["PartnerRefundRequest"]
export type Refund = Ok<"partnerOrders.createRefund">

// Events and webhooks
export type PartnerEvent = Schemas["PartnerEvent"]
export type EventPage = Schemas["PartnerEventPage"]
export type WebhookRegistration = Schemas["PartnerWebhookRegistration"]
export type WebhookEndpoint = Schemas["PartnerWebhookEndpoint"]
export type WebhookState = Schemas["PartnerWebhookState"]
export type WebhookDelivery = Schemas["PartnerWebhookDelivery"]
export type WebhookDeliveryStatus = WebhookDelivery["status"]
export type WebhookAttempt = Schemas["PartnerWebhookAttempt"]
export type WebhookDeliveryPage = Schemas["PartnerWebhookDeliveryPage"]
export type WebhookDeliveryFilter = Filter<"partnerWebhooks.listWebhookDeliveries">
export type RedeliverRequest = Schemas["PartnerWebhookRedeliverRequest"]
export type RedeliverResult = Ok<"partnerWebhooks.redeliverWebhooks">
export type WebhookTestResult = Ok<"partnerWebhooks.testWebhook">

// Settlements, transactions, payouts
export type Settlement = Schemas["SettlementStatement"]
export type SettlementLine = Schemas["SettlementLine"]
export type SettlementPage = Schemas["SettlementPage"]
export type SettlementFilter = Filter<"partnerMoney.listSettlements">
export type Transaction = Schemas["PartnerTransaction"]
export type TransactionPage = Schemas["PartnerTransactionPage"]
export type TransactionFilter = Filter<"partnerMoney.listTransactions">
export type TransactionCsvFilter = Query<"partnerMoney.exportTransactions">
export type Payout = Schemas["Payout"]
export type PayoutPage = Schemas["PayoutPage"]
export type PayoutFilter = Filter<"partnerMoney.listPayouts">

// Brokerage
export type BrokerageEligibility = Schemas["BrokerageEligibility"]
export type BrokerageCaseRequest = Schemas["BrokerageCaseRequest"]
export type BrokerageCase = Schemas["BrokerageCase"]
export type BrokerageStatus = BrokerageCase["status"]
export type BrokerageCaseDetail = Schemas["BrokerageCaseDetail"]
export type BrokerageCasePage = Schemas["BrokerageCasePage"]
export type BrokerageFilter = Filter<"partnerBrokerage.listCases">

// Referral links and reports
export type ReferralLinkInput = Schemas["ReferralLinkInput"]
export type ReferralLink = Ok<"partnerReferrals.createLink">
export type ReferralLinkWithStats = Schemas["ReferralLinkWithStats"]
export type ReferralLinkPage = Schemas["ReferralLinkPage"]
export type ClickReport = Schemas["ReferralClickReport"]
export type ClickFilter = Query<"partnerReferrals.myClicks">
export type ReferralSale = Schemas["ReferralSale"]
export type ReferralSalePage = Schemas["ReferralSalePage"]
export type SaleFilter = Filter<"partnerReferrals.mySales">
export type CommissionEntry = Schemas["CommissionEntry"]
export type CommissionPage = Schemas["CommissionPage"]
export type ReferralAnalytics = Schemas["ReferralAnalytics"]
export type AnalyticsFilter = Query<"partnerReferrals.analytics">

// Hosted checkout
export type CheckoutSessionRequest = Schemas["CheckoutSessionRequest"]
export type CheckoutSession = Schemas["CheckoutSession"]
export type CheckoutSessionCreated = Ok<"checkoutSessions.createCheckoutSession">
