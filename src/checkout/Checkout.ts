/**
 * The hosted checkout: sessions, the `pt` link, paying, and completing a paid session. This file
 * is the service (its dependencies, its links and lookups, its one record of operations); the
 * operations live beside it: Opening.ts, Paying.ts, Settlement.ts, Reconciliation.ts.
 *
 * Contract a reader must keep:
 * - A session pays at most once. `pay` reserves the domain first (one transaction holding the
 *   session and listing rows: no other session of the listing may be paying, no order may exist),
 *   stores the provider's payment reference before the charge (or, with a hosted provider, before
 *   the buyer is sent to the provider's page), and only then charges. `complete` (called by `pay`,
 *   the provider's webhook, the buyer's return and the reconciliation fiber, in any order and any
 *   number of times) creates the one order, its ledger posting and its `order.paid` event in one
 *   transaction; a second call finds the session paid and does nothing.
 * - Only a payment the service started completes a session: `complete` takes the reference stored
 *   for the session's current payment, and a provider's report must match it in provider,
 *   payment id, session, amount, currency and environment (`paymentMismatch`). Anything else is
 *   logged and ignored.
 * - While a session pays, its listing is held for its seller (`PAYMENT_HOLD_MS`): other sellers'
 *   quotes, orders and sessions are refused before anyone is charged. If the domain was sold
 *   meanwhile all the same (the hold outlived, an operator intervened, the seller's own order),
 *   the session is `refunded`: the payment is booked as taken and owed back, and the provider
 *   refund is sent and booked as returned (retried by `reconcile` until the provider takes it).
 * - Card numbers exist only in memory between the sandbox form and the sandbox provider; with a
 *   hosted provider (Stripe Checkout) the service never sees them.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { ReportedPayment } from "../domain/Checkout.js"
import { Market } from "../market/Market.js"
import type { PartnerEnvironment, PartnerIdentity, PartnerOwner } from "../partner/Auth.js"
import { Books } from "../partner/ledger/Books.js"
import { Orders } from "../partner/orders/Orders.js"
import { AppConfig } from "../platform/Config.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { ReferralAttribution } from "../referrals/Attribution.js"
import { CartCheckout, CartCheckoutUnavailable, CartFulfilment, type CartInput } from "./Cart.js"
import { CheckoutSessionNotFound } from "./Errors.js"
import { offer, openCart, openForMarketplace, openForOffer, openForPartner, type OpenInput } from "./Opening.js"
import { afterAction, cancelAttempt, pay, takesCard } from "./Paying.js"
import { PaymentProviders, type PaymentProviderShape } from "./PaymentProvider.js"
import { providerEvent, reconcile } from "./Reconciliation.js"
import { CheckoutRepo, type SessionRow } from "./Repo.js"
import { CheckoutConfig } from "./Settings.js"
import { complete, refundCart } from "./Settlement.js"

export { MARKETPLACE_NAME, MARKETPLACE_PARTNER_ID, type OpenInput } from "./Opening.js"
export { reservedMessage } from "./Paying.js"

const PT_PURPOSE = "checkout-pt"

export interface BuyerForm {
  readonly email: string
  readonly name: string
  readonly country: string
  readonly cardNumber: string
  readonly cardExp: string
  readonly cardCvc: string
}

export type TokenCheck =
  | { readonly _tag: "Ok"; readonly session: SessionRow }
  | { readonly _tag: "Tampered" }
  | { readonly _tag: "Expired"; readonly session: SessionRow | null }

export type PayResult =
  | { readonly _tag: "Paid"; readonly session: SessionRow; readonly redirect: string | null }
  | { readonly _tag: "Invalid"; readonly field: string; readonly message: string }
  | { readonly _tag: "Declined"; readonly message: string }
  | { readonly _tag: "Unavailable"; readonly message: string }
  | { readonly _tag: "RequiresAction"; readonly redirectUrl: string | null }
  | { readonly _tag: "Pending"; readonly message: string }

/** What every checkout operation works with: its stores, the services it calls, its settings. */
export interface CheckoutDeps {
  readonly repo: Context.Tag.Service<typeof CheckoutRepo>
  readonly orders: Context.Tag.Service<typeof Orders>
  readonly market: Context.Tag.Service<typeof Market>
  readonly listings: Context.Tag.Service<typeof Market>["sales"]
  readonly providers: Context.Tag.Service<typeof PaymentProviders>
  readonly referrals: Context.Tag.Service<typeof ReferralAttribution>
  readonly fulfilment: Context.Tag.Service<typeof CartFulfilment>
  readonly books: Context.Tag.Service<typeof Books>
  readonly settings: Context.Tag.Service<typeof CheckoutConfig>
  readonly baseUrl: string
  /** The provider a session pays with: its environment's. */
  readonly providerOf: (s: SessionRow) => PaymentProviderShape
  /** The signed `pt` of a session's link. */
  readonly tokenOf: (s: { readonly id: string; readonly expires_at: Date }) => string
}

const isExpired = (s: SessionRow, now: number) =>
  s.status === "expired" || (s.status === "open" && s.expires_at.getTime() <= now)

/** The session a `pt` link names: tampered (400), expired (410) or the session. */
const fromToken = (d: CheckoutDeps, secrets: Context.Tag.Service<typeof ServiceSecret>, pt: string | undefined) =>
  Effect.gen(function*() {
    if (pt === undefined || pt.length > 2000) return { _tag: "Tampered" } as TokenCheck
    const t = secrets.verify<{ s: string; x: number }>(PT_PURPOSE, pt)
    if (Option.isNone(t) || typeof t.value.s !== "string" || typeof t.value.x !== "number") {
      return { _tag: "Tampered" } as TokenCheck
    }
    const now = yield* Clock.currentTimeMillis
    const s = yield* d.repo.byId(t.value.s)
    if (Option.isNone(s)) return { _tag: "Tampered" } as TokenCheck
    if (s.value.status === "paid" || s.value.status === "refunded") {
      return { _tag: "Ok", session: s.value } as TokenCheck
    }
    if (t.value.x <= now || isExpired(s.value, now)) {
      return { _tag: "Expired", session: s.value } as TokenCheck
    }
    return { _tag: "Ok", session: s.value } as TokenCheck
  })

const sessionFor = (d: CheckoutDeps, id: string, partner: PartnerIdentity) =>
  Effect.flatMap(
    d.repo.byId(id),
    (s) =>
      Option.isSome(s) && s.value.partner_id === partner.partnerId && s.value.environment === partner.environment &&
        s.value.kind === "partner"
        ? Effect.succeed(s.value)
        : Effect.fail(CheckoutSessionNotFound.of(id))
  )

/** While another seller's quote holds the session's listing: until when (the page shows no form). */
const heldUntil = (d: CheckoutDeps, s: SessionRow) =>
  s.kind === "cart" || s.domain === null || s.partner_id === null
    ? Effect.succeed(Option.none<Date>())
    : d.listings.heldAgainst(s.environment, s.domain, s.partner_id)

const make = Effect.gen(function*() {
  const market = yield* Market
  const secrets = yield* ServiceSecret
  const providers = yield* PaymentProviders
  const d: CheckoutDeps = {
    repo: yield* CheckoutRepo,
    orders: yield* Orders,
    market,
    listings: market.sales,
    providers,
    referrals: yield* ReferralAttribution,
    fulfilment: yield* CartFulfilment,
    books: yield* Books,
    settings: yield* CheckoutConfig,
    baseUrl: (yield* AppConfig).baseUrl,
    providerOf: (s) => (s.environment === "sandbox" ? providers.sandbox : providers.live),
    tokenOf: (s) => secrets.sign(PT_PURPOSE, { s: s.id, x: s.expires_at.getTime() })
  }
  const checkoutPath = (s: { readonly id: string; readonly expires_at: Date }) => `/checkout?pt=${d.tokenOf(s)}`
  return {
    openForPartner: (partner: PartnerIdentity, domain: string, input: OpenInput) =>
      openForPartner(d, partner, domain, input),
    offer: (environment: PartnerEnvironment, domain: string) => offer(d, environment, domain),
    openForMarketplace: (environment: PartnerEnvironment, domain: string, referralCookie: string | undefined) =>
      openForMarketplace(d, environment, domain, referralCookie),
    openForOffer: (domain: string, priceCents: number, buyerEmail: string) =>
      openForOffer(d, domain, priceCents, buyerEmail),
    openCart: (cart: CartInput) => openCart(d, cart),
    refundCart: (input: { readonly cartId: string; readonly amountCents: number; readonly key: string }) =>
      refundCart(d, input),
    sessionFor: (id: string, partner: PartnerIdentity) => sessionFor(d, id, partner),
    /** A partner's sessions in one environment, newest first: a page after `beforeId` (the console's list). */
    sessionsOf: (owner: PartnerOwner, beforeId: string | null, limit: number) =>
      Effect.map(d.repo.ofPartner(owner, beforeId, limit + 1), (rows) => ({
        sessions: rows.slice(0, limit),
        hasMore: rows.length > limit
      })),
    fromToken: (pt: string | undefined) => fromToken(d, secrets, pt),
    tokenOf: d.tokenOf,
    checkoutPath,
    checkoutUrl: (s: { readonly id: string; readonly expires_at: Date }) => `${d.baseUrl}${checkoutPath(s)}`,
    takesCard: (s: SessionRow) => takesCard(d, s),
    pay: (sessionId: string, form: BuyerForm) => pay(d, sessionId, form),
    afterAction: (sessionId: string, sandboxConfirmed: boolean) => afterAction(d, sessionId, sandboxConfirmed),
    cancelAttempt: (sessionId: string) => cancelAttempt(d, sessionId),
    complete: (sessionId: string, ref: string, reported?: ReportedPayment) => complete(d, sessionId, ref, reported),
    providerEvent: (event: unknown) => providerEvent(d, event),
    reconcile: reconcile(d),
    byId: d.repo.byId,
    heldUntil: (s: SessionRow) => heldUntil(d, s),
    isExpired
  }
})

export class Checkout extends Effect.Service<Checkout>()("app/Checkout", {
  effect: make,
  dependencies: [CheckoutRepo.Default, Books.Default]
}) {
  /** Kept for the existing wiring (src/checkout/Layer.ts and the checkout tests' stand-in layers). */
  static readonly layer = Checkout.Default
}

/** The cart seam (src/checkout/Cart.ts) over this checkout. */
export const CartCheckoutLive = Layer.effect(
  CartCheckout,
  Effect.map(Checkout, (checkout) => ({
    open: (cart: CartInput) =>
      cart.items.length === 0 || cart.totalCents <= 0
        ? Effect.fail(new CartCheckoutUnavailable("an empty cart cannot be checked out"))
        : Effect.map(checkout.openCart(cart), (s) => ({ sessionId: s.id, checkoutPath: checkout.checkoutPath(s) })),
    refund: checkout.refundCart
  }))
)
