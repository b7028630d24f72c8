/**
 * Hosted checkout endpoints (docs/checkout.md).
 *
 *   POST /api/partner/v1/checkout-session        scope embed: open a session, get its checkout_url
 *   GET  /api/partner/v1/checkout-session/{id}   scope embed: the session and its order
 *   GET  /checkout?pt=…                          the hosted payment page (HTML), or its receipt
 *   POST /checkout/pay?pt=…                      the page's form post (buyer + card)
 *   POST /checkout/confirm?pt=…                  the confirmation step (sandbox card 3220)
 *   GET  /checkout/return?pt=…[&cancelled=1]     back from the provider's page (Stripe Checkout) or confirmation step
 *   GET  /buy/{domain}[?env=sandbox]             the marketplace's own sale: the purchase page (writes nothing)
 *   POST /buy/{domain}[?env=sandbox]             its form post (CSRF): opens a session, 303 to /checkout
 *   POST /api/checkout/stripe/webhook            Stripe events (checkout.session.*), Stripe-Signature verified
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect, Schema } from "effect"
import { SESSION_STATUSES } from "../domain/Checkout.js"
import { ListingHeld } from "../market/Errors.js"
import { PartnerAuth, requiresScope } from "../partner/Auth.js"
import { MalformedDomain } from "../partner/Errors.js"
import { documentedAt, htmlErrorPages, HtmlPage, rateLimited } from "../platform/http/ApiAnnotations.js"
import { BadRequest, Conflict, errorWire, InternalError } from "../platform/http/Errors.js"
import { errorPageHtml, htmlResponse } from "../platform/http/Html.js"
import { IdempotencyKey } from "../platform/http/IdempotencyKey.js"
import { policy } from "../platform/http/RateLimit.js"
import type { Refusal } from "../platform/http/RateLimitEdge.js"
import {
  CheckoutSessionNotFound,
  DomainNotForSale,
  DomainNotPriced,
  InvalidRedirectUrl,
  ListingUnavailable
} from "./Errors.js"

/**
 * Per-IP limits of the public buy page (RATE_LIMIT_BUY_PAGE, RATE_LIMIT_BUY_START): showing the
 * page is a public read; starting a checkout writes a session, so it has the tighter budget.
 */
/** A buy page over its limit: a page a person can read (counted by the request guard). */
const pageRefused: Refusal = (_request, error) =>
  Effect.sync(() =>
    htmlResponse(errorPageHtml("Too many requests", error.message, "Wait a minute, then reload the page."), {
      status: 429
    })
  )

export const limits = {
  buyPage: policy("buy_page", 120, 60),
  buyStart: policy("buy_start", 20, 60)
}

export const Email = Schema.String.pipe(
  Schema.maxLength(254),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an e-mail address" })
)

export const CheckoutSessionRequest = Schema.Struct({
  domain: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(253)).annotations({
    description: "A listed domain of the credential's inventory (sandbox credentials: the sandbox inventory)"
  }),
  buyer_email: Schema.optional(Email).annotations({ description: "Pre-fills the page's e-mail field" }),
  return_url: Schema.optional(Schema.String.pipe(Schema.maxLength(2048))).annotations({
    description: "https (http only outside production). The buyer lands on return_url?session_id=cs_…&status=paid"
  }),
  cancel_url: Schema.optional(Schema.String.pipe(Schema.maxLength(2048))).annotations({
    description: "https (http only outside production): the page's Cancel link"
  }),
  reference: Schema.optional(Schema.String.pipe(Schema.maxLength(200))).annotations({
    description: "Your own reference, echoed back"
  })
}).annotations({
  identifier: "CheckoutSessionRequest",
  examples: [{
    domain: "amberharbor-sandbox.app",
    return_url: "https://partner.example.net/thanks",
    cancel_url: "https://partner.example.net/cart",
    reference: "cart-8812"
  }]
})

export const CheckoutSession = Schema.Struct({
  id: Schema.String.annotations({ description: "cs_…" }),
  checkout_url: Schema.String.annotations({
    description: "{base_url}/checkout?pt=<signed token>; send the buyer here. Valid until expires_at."
  }),
  domain: Schema.String,
  price_cents: Schema.Int,
  currency: Schema.String,
  status: Schema.Literal(...SESSION_STATUSES).annotations({
    description:
      "open → processing (a payment in progress: the domain is reserved) → paid; requires_action while the buyer confirms with the bank; expired after 7 days; refunded if the domain was sold meanwhile"
  }),
  expires_at: Schema.String,
  reference: Schema.NullOr(Schema.String),
  return_url: Schema.NullOr(Schema.String),
  cancel_url: Schema.NullOr(Schema.String),
  environment: Schema.Literal("live", "sandbox"),
  created_at: Schema.String,
  paid_at: Schema.NullOr(Schema.String),
  order: Schema.NullOr(Schema.Struct({
    public_id: Schema.String,
    status: Schema.String,
    payment_model: Schema.String
  })).annotations({
    description: "The order created when the session was paid (payment_model hosted_checkout, status PAID first)"
  })
}).annotations({
  identifier: "CheckoutSession",
  examples: [{
    id: "cs_01jdc4v5b6n7m8k9j0h1g2f3d4",
    checkout_url:
      "https://marketplace.example.net/checkout?pt=eyJzIjoiY3NfMDFqZGM0djViNm43bThrOWowaDFnMmYzZDQifQ.Yk3Jq9c2VbT0",
    domain: "amberharbor-sandbox.app",
    price_cents: 1284000,
    currency: "USD",
    status: "paid" as const,
    expires_at: "2026-01-08T12:00:00.000Z",
    reference: "cart-8812",
    return_url: "https://partner.example.net/thanks",
    cancel_url: "https://partner.example.net/cart",
    environment: "sandbox" as const,
    created_at: "2026-01-01T12:00:00.000Z",
    paid_at: "2026-01-01T12:03:10.000Z",
    order: { public_id: "ord_01jdc4w9e8r7t6y5u4i3o2p1a0", status: "PAID", payment_model: "hosted_checkout" }
  }]
})

export class CheckoutSessionsApi extends HttpApiGroup.make("checkoutSessions")
  .add(
    HttpApiEndpoint.post("createCheckoutSession", "/api/partner/v1/checkout-session")
      .setPayload(CheckoutSessionRequest)
      .setHeaders(Schema.Struct({
        "idempotency-key": Schema.optional(IdempotencyKey).annotations({
          description: "Optional: a retry with the same key and body answers the first 201"
        })
      }))
      .addSuccess(CheckoutSession, { status: 201 })
      .addError(errorWire(MalformedDomain))
      .addError(errorWire(InvalidRedirectUrl))
      .addError(errorWire(DomainNotForSale))
      .addError(errorWire(DomainNotPriced))
      .addError(errorWire(ListingUnavailable))
      .addError(errorWire(ListingHeld))
      .addError(BadRequest)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Open a hosted checkout session for a listed domain")
      .annotate(
        OpenApi.Description,
        "The service is merchant of record: the buyer pays on the hosted page, the order (payment_model hosted_checkout) is yours, and your commission accrues at payment and is paid out after settlement. Unlisted domain 404 `not_found` (details.reason `domain_not_listed`); no buy-now price 409 `not_priced`; an order in progress or a locked listing 409 `not_available`; another partner's valid quote holds the name: 409 `conflict` with `details.held_until`. An optional Idempotency-Key makes retries return the same session."
      )
      .pipe(requiresScope("embed"), documentedAt("/docs/checkout.md#open-a-session"))
  )
  .add(
    HttpApiEndpoint.get("getCheckoutSession")`/api/partner/v1/checkout-session/${
      HttpApiSchema.param("id", Schema.String)
    }`
      .addSuccess(CheckoutSession)
      .addError(errorWire(CheckoutSessionNotFound))
      .annotate(
        OpenApi.Description,
        "One of your checkout sessions (`cs_…`): its status (open, processing, requires_action, paid, expired, refunded), the price and, once paid, its order. Another partner's session is 404. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "A checkout session, its status and its order")
      .pipe(requiresScope("embed"), documentedAt("/docs/checkout.md#session-status"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: hosted checkout")
  .annotate(OpenApi.Description, "HMAC-signed (see docs/partner.md). Flow: docs/checkout.md.")
{}

const Html = HtmlPage
const Redirect = (status: 302 | 303, description: string) =>
  Schema.Void.annotations({ description, ...HttpApiSchema.annotations({ status }) })

const PtParam = Schema.Struct({
  pt: Schema.optional(Schema.String).annotations({ description: "The signed checkout token of the session's link" })
})
const ReturnParams = Schema.Struct({
  pt: Schema.optional(Schema.String),
  payment_intent: Schema.optional(Schema.String),
  payment_intent_client_secret: Schema.optional(Schema.String),
  cancelled: Schema.optional(Schema.String).annotations({
    description: "Set by the provider's cancel link: the buyer gave up, the payment is stopped and the domain released"
  })
})

export const PayForm = Schema.Struct({
  csrf: Schema.optional(Schema.String),
  email: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  country: Schema.optional(Schema.String),
  card_number: Schema.optional(Schema.String),
  card_exp: Schema.optional(Schema.String),
  card_cvc: Schema.optional(Schema.String)
}).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

/** Which inventory the buy page sells: live (default) or the sandbox inventory (a sandbox link's page). */
export const BuyParams = Schema.Struct({
  env: Schema.optional(Schema.Literal("live", "sandbox")).annotations({
    description:
      "`sandbox`: the sandbox inventory, paid with the sandbox test cards, attributed only to sandbox links (a sandbox domain link leads here). Default: live."
  })
})

export const BuyForm = Schema.Struct({ csrf: Schema.optional(Schema.String) }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)

const ConfirmForm = Schema.Struct({ csrf: Schema.optional(Schema.String), action: Schema.optional(Schema.String) })
  .pipe(
    HttpApiSchema.withEncoding({ kind: "UrlParams" })
  )

/** HTML pages answer HTML error pages, never the JSON envelope: the OpenAPI operation says so. */
const htmlErrors = htmlErrorPages(
  "Error page (tampered or malformed link, oversized field), or the typed 400 for an undecodable query string or form"
)

export class CheckoutPagesApi extends HttpApiGroup.make("checkoutPages")
  .add(
    HttpApiEndpoint.get("checkoutPage", "/checkout")
      .setUrlParams(PtParam)
      .addSuccess(
        Html(200, "The payment page (domain, price, seller, buyer and card form), or the receipt of a paid session")
      )
      .addError(Html(400, "Tampered link"))
      .addError(Html(410, "Expired link"))
      .annotateContext(htmlErrors)
      .annotate(
        OpenApi.Description,
        "The hosted payment page of a checkout session, reached from the session's `checkout_url` (`pt` is its signed token): the domain, the price, the seller and the payment form (with PAYMENT_PROVIDER=stripe, a button to Stripe's page). A paid session shows its receipt. A changed link is 400, an expired one 410."
      )
      .annotate(OpenApi.Summary, "Hosted payment page")
      .pipe(documentedAt("/docs/checkout.md#the-payment-page"))
  )
  .add(
    HttpApiEndpoint.post("checkoutPay", "/checkout/pay")
      .setUrlParams(PtParam)
      .setPayload(PayForm)
      .addSuccess(
        Html(200, "The page again with a message (declined card, invalid field), the confirmation step, or the receipt")
      )
      .addSuccess(
        Redirect(
          303,
          "Paid: to return_url?session_id=…&status=paid (or the receipt). PAYMENT_PROVIDER=stripe: to the Stripe Checkout page, where the buyer pays"
        )
      )
      .addError(Html(400, "Tampered link or oversized field"))
      .addError(Html(403, "Cross-site post or stale form"))
      .addError(Html(409, "The domain is no longer available (not charged)"))
      .addError(Html(410, "Expired link"))
      .annotateContext(htmlErrors)
      .annotate(
        OpenApi.Description,
        "The payment page's form: charges the card and redirects (303) to the partner's success URL, or to a confirmation step for a card that needs one. The domain is re-checked before any charge (409, not charged); cross-site posts and stale forms are 403."
      )
      .annotate(OpenApi.Summary, "Pay (the payment page's form post)")
      .pipe(documentedAt("/docs/checkout.md#the-payment-page"))
  )
  .add(
    HttpApiEndpoint.post("checkoutConfirm", "/checkout/confirm")
      .setUrlParams(PtParam)
      .setPayload(ConfirmForm)
      .addSuccess(Html(200, "Result page"))
      .addSuccess(Redirect(303, "Paid: to return_url"))
      .addError(Html(400, "Tampered link"))
      .addError(Html(403, "Cross-site post or stale form"))
      .annotateContext(htmlErrors)
      .annotate(
        OpenApi.Description,
        "The sandbox's stand-in for a 3-D Secure step: confirming completes the payment, declining fails it; both redirect (303) to the partner's URL. Cross-site posts and stale forms are 403."
      )
      .annotate(OpenApi.Summary, "Complete the confirmation step of a sandbox payment (card 4000 0000 0000 3220)")
      .pipe(documentedAt("/docs/checkout.md#test-cards"))
  )
  .add(
    HttpApiEndpoint.get("checkoutReturn", "/checkout/return")
      .setUrlParams(ReturnParams)
      .addSuccess(Html(200, "Result page"))
      .addSuccess(Redirect(303, "Paid: to return_url (or the receipt); still open at the provider: back to its page"))
      .addError(Html(400, "Tampered link"))
      .annotateContext(htmlErrors)
      .annotate(
        OpenApi.Description,
        "Where Stripe Checkout sends the buyer back: the payment is looked up at Stripe, recorded if paid, and the buyer is redirected (303) to the partner's success or cancel URL."
      )
      .annotate(
        OpenApi.Summary,
        "Where the provider's payment page (Stripe Checkout) sends the buyer back, paid or cancelled"
      )
      .pipe(documentedAt("/docs/checkout.md#stripe"))
  )
  .add(
    HttpApiEndpoint.get("buyPage")`/buy/${HttpApiSchema.param("domain", Schema.String)}`
      .setUrlParams(BuyParams)
      .addSuccess(Html(200, "The purchase page: domain, price, seller and a form that starts the checkout"))
      .addError(Html(404, "Not listed"))
      .addError(Html(409, "Not priced, or an order is in progress"))
      .addError(Html(429, "Rate limited (RateLimit-* and Retry-After headers)"))
      .annotateContext(htmlErrors)
      .annotate(OpenApi.Summary, "Buy a listed domain from the marketplace itself (no partner)")
      .annotate(
        OpenApi.Description,
        "Renders the purchase page and writes nothing (no session, no referral funnel entry): link previews and crawlers may fetch it freely. The page's form posts to the same path."
      )
      .pipe(
        rateLimited(limits.buyPage, { refusal: pageRefused }),
        documentedAt("/docs/checkout.md#buy-without-a-partner")
      )
  )
  .add(
    HttpApiEndpoint.post("buyStart")`/buy/${HttpApiSchema.param("domain", Schema.String)}`
      .setUrlParams(BuyParams)
      .setPayload(BuyForm)
      .addSuccess(Redirect(303, "To the payment page of the new session"))
      .addError(Html(403, "Cross-site post, or a missing or stale form token"))
      .addError(Html(404, "Not listed"))
      .addError(Html(409, "Not priced, or an order is in progress"))
      .addError(Html(429, "Rate limited (RateLimit-* and Retry-After headers)"))
      .annotateContext(htmlErrors)
      .annotate(OpenApi.Summary, "Start the checkout of the purchase page (its form post)")
      .annotate(
        OpenApi.Description,
        "Opens a checkout session for the page's domain (attributed to the referral cookie's link of the same environment; a visitor's repeated starts count once in the funnel) and redirects to the payment page."
      )
      .pipe(
        rateLimited(limits.buyStart, { refusal: pageRefused }),
        documentedAt("/docs/checkout.md#buy-without-a-partner")
      )
  )
  .add(
    HttpApiEndpoint.post("stripeWebhook", "/api/checkout/stripe/webhook")
      .addSuccess(Schema.Struct({ received: Schema.Boolean }))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Stripe's event deliveries for hosted payments, verified with the `Stripe-Signature` header and STRIPE_WEBHOOK_SECRET (400 when the signature does not verify). Any event about a payment of ours is recorded once; others are acknowledged and ignored."
      )
      .annotate(
        OpenApi.Summary,
        "Stripe webhook (checkout.session.completed, async_payment_succeeded/failed, expired), verified with Stripe-Signature and STRIPE_WEBHOOK_SECRET; an event about no payment of ours is acknowledged and ignored"
      )
      .pipe(documentedAt("/docs/checkout.md#stripe"))
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Hosted checkout pages")
  .annotate(
    OpenApi.Description,
    "The server-rendered pages a buyer pays on: start a session, enter card and e-mail, confirm 3-D Secure"
  )
{}
