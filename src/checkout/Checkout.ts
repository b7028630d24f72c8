/**
 * The hosted checkout: sessions, the `pt` link, paying, and completing a paid session.
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
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import { type Card, checkCard, paymentMismatch, type ReportedPayment, returnAddress } from "../domain/Checkout.js"
import type { Hold } from "../domain/Reservation.js"
import { ListingHeld } from "../market/Errors.js"
import { Market, MARKETPLACE_SELLER } from "../market/Market.js"
import type { PartnerEnvironment, PartnerIdentity } from "../partner/Auth.js"
import { Books, postPaymentReturned, postPaymentTaken } from "../partner/ledger/Books.js"
import { Orders } from "../partner/orders/Orders.js"
import { AppConfig } from "../platform/Config.js"
import { makeId } from "../platform/Ids.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { type Attribution, ReferralAttribution } from "../referrals/Attribution.js"
import { CartCheckout, CartCheckoutUnavailable, CartFulfilment, type CartInput, type CartItem } from "./Cart.js"
import { CheckoutSessionNotFound, DomainNotForSale, DomainNotPriced, ListingUnavailable } from "./Errors.js"
import { type PaymentOutcome, PaymentProviders, type PaymentStart } from "./PaymentProvider.js"
import { CheckoutRepo, type SessionRow } from "./Repo.js"
import { CheckoutConfig } from "./Settings.js"

const PT_PURPOSE = "checkout-pt"
/** A confirmation step (3-D Secure) not completed within this long frees the domain again. */
const ABANDONED_ACTION_MS = 30 * 60_000
/**
 * A paying session holds its listing for its seller (src/domain/Reservation.ts) from the start of
 * the attempt until a little after reconciliation gives an abandoned confirmation up: while the
 * buyer is on the provider's page, no other seller's quote, order or session takes the name
 * (refused before anyone is charged). A declined, cancelled or interrupted attempt gives it back.
 */
const PAYMENT_HOLD_MS = ABANDONED_ACTION_MS + 5 * 60_000
const paymentHold = (s: SessionRow): Hold | null =>
  s.kind === "cart" || s.partner_id === null || s.processing_since === null
    ? null
    : { holder: s.partner_id, until: new Date(s.processing_since.getTime() + PAYMENT_HOLD_MS) }
/**
 * The house partner: owner of the marketplace's own sales (migration 0110, commission 0), and
 * the seller those sales claim a listing for (src/domain/Reservation.ts).
 */
export const MARKETPLACE_PARTNER_ID = MARKETPLACE_SELLER
export const MARKETPLACE_NAME = "Domain Marketplace"

export interface OpenInput {
  readonly domain: string
  readonly buyerEmail?: string | undefined
  readonly returnUrl?: string | undefined
  readonly cancelUrl?: string | undefined
  readonly reference?: string | undefined
}

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

/** What the buyer reads while another seller's quote holds the domain. */
export const reservedMessage = (until: Date | string) =>
  `This domain is reserved until ${
    typeof until === "string" ? until : until.toISOString()
  } for another buyer. You have not been charged; try again after that time.`

/** What the buyer pays for, one line each: the domain, or each item of a cart. */
const linesOf = (s: SessionRow): ReadonlyArray<{ readonly name: string; readonly amountCents: number }> => {
  const items = typeof s.items === "string" ? (JSON.parse(s.items) as unknown) : s.items
  const cart = Array.isArray(items) ? (items as ReadonlyArray<CartItem>) : []
  const lines = cart.map((i) => ({
    name: `${i.op === "renew" ? "Renewal" : "Restore"} of ${i.domain}, ${i.years} ${i.years === 1 ? "year" : "years"}`,
    amountCents: i.priceCents
  }))
  return s.domain !== null || lines.reduce((sum, l) => sum + l.amountCents, 0) !== s.price_cents
    ? [{ name: s.domain ? `Domain ${s.domain}` : `Renewals (${s.id})`, amountCents: s.price_cents }]
    : lines
}

const make = Effect.gen(function*() {
  const repo = yield* CheckoutRepo
  const orders = yield* Orders
  const market = yield* Market
  const listings = market.sales
  const secrets = yield* ServiceSecret
  const config = yield* AppConfig
  const checkoutSettings = yield* CheckoutConfig
  const providers = yield* PaymentProviders
  const referrals = yield* ReferralAttribution
  const fulfilment = yield* CartFulfilment
  const books = yield* Books

  const ttl = checkoutSettings.sessionTtl
  const tokenOf = (s: { readonly id: string; readonly expires_at: Date }) =>
    secrets.sign(PT_PURPOSE, { s: s.id, x: s.expires_at.getTime() })
  const checkoutPath = (s: { readonly id: string; readonly expires_at: Date }) => `/checkout?pt=${tokenOf(s)}`
  const checkoutUrl = (s: { readonly id: string; readonly expires_at: Date }) => `${config.baseUrl}${checkoutPath(s)}`
  const providerOf = (s: SessionRow) => (s.environment === "sandbox" ? providers.sandbox : providers.live)

  /**
   * The listing of `domain` if it can be sold now, else why not: one rule for showing the buy
   * page (read without a lock) and for opening a session (under the row lock).
   */
  const forSale = <
    L extends {
      readonly status: string
      readonly bin_price_cents: unknown
      readonly locked: boolean
    }
  >(domain: string, listing: Option.Option<L>, needsPrice = true) =>
    Effect.gen(function*() {
      if (
        Option.isNone(listing) || listing.value.status === "withdrawn" || listing.value.status === "sold"
      ) return yield* DomainNotForSale.of(domain)
      const l = listing.value
      if (needsPrice && l.bin_price_cents === null) return yield* DomainNotPriced.of(domain)
      // A listing leaves `active` when an order is placed on it; an operator's lock holds it without one.
      if (l.status !== "active") {
        return yield* new ListingUnavailable({
          message: `${domain} is no longer available: an order is already in progress`
        })
      }
      if (l.locked) {
        return yield* new ListingUnavailable({ message: `${domain} is not available: the listing is locked` })
      }
      return l
    })

  /**
   * Creates a session for a listed domain of `environment`'s inventory at its buy-now price, or at
   * `priceCents` when given (an accepted or countered offer: src/offers/Offers.ts).
   */
  const openListing = (
    kind: "partner" | "marketplace",
    environment: PartnerEnvironment,
    domain: string,
    input: OpenInput & {
      readonly partnerId: string
      readonly credentialId: string | null
      readonly referral: Attribution | null
      readonly priceCents?: number
    }
  ) =>
    Effect.gen(function*() {
      // Another seller's live hold (a partner's quote) refuses the session: ListingHeld, 409.
      const l = yield* forSale(
        domain,
        yield* listings.lockForSale(environment, domain, input.partnerId),
        input.priceCents === undefined
      )
      const now = yield* Clock.currentTimeMillis
      const created = yield* repo.insert({
        id: makeId("cs"),
        kind,
        partnerId: input.partnerId,
        credentialId: input.credentialId,
        environment,
        listingId: l.id,
        domain,
        priceCents: input.priceCents ?? Number(l.bin_price_cents),
        currency: l.currency,
        reference: input.reference ?? null,
        returnUrl: input.returnUrl ?? null,
        cancelUrl: input.cancelUrl ?? null,
        buyerEmail: input.buyerEmail ?? null,
        referral: input.referral
          ? { partnerId: input.referral.partnerId, linkId: input.referral.linkId, clickId: input.referral.clickId }
          : null,
        cart: null,
        expiresAt: new Date(now + Duration.toMillis(ttl))
      })
      return Option.getOrThrow(created)
    })

  const openForPartner = (partner: PartnerIdentity, domain: string, input: OpenInput) =>
    openListing("partner", partner.environment, domain, {
      ...input,
      partnerId: partner.partnerId,
      credentialId: partner.credentialId,
      referral: null
    })

  /**
   * What the buy page (`GET /buy/{domain}`) shows: the domain's price in `environment`'s
   * inventory, or why it cannot be bought. Reads only: no session, no lock, no funnel entry.
   */
  const offer = (environment: PartnerEnvironment, domain: string) =>
    Effect.gen(function*() {
      const l = yield* forSale(domain, yield* market.getListing(environment, domain))
      // The page offers no purchase while another seller's quote holds the name.
      const held = yield* listings.heldAgainst(environment, domain, MARKETPLACE_SELLER)
      if (Option.isSome(held)) return yield* ListingHeld.until(domain, held.value)
      return {
        domain,
        environment,
        seller: MARKETPLACE_NAME,
        priceCents: Number(l.bin_price_cents),
        currency: l.currency
      }
    })

  /**
   * The marketplace's own sale (the buy page's form post), attributed to a referral link when the
   * cookie names one of the same environment: the live page sells live inventory to live links'
   * visitors, the sandbox page (a sandbox link's destination) sandbox inventory to sandbox links'.
   */
  const openForMarketplace = (
    environment: PartnerEnvironment,
    domain: string,
    referralCookie: string | undefined
  ) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const attribution = Option.filter(yield* referrals.resolve(referralCookie, new Date(now)), (a) =>
        a.environment === environment)
      const session = yield* openListing("marketplace", environment, domain, {
        domain,
        partnerId: MARKETPLACE_PARTNER_ID,
        credentialId: null,
        referral: Option.getOrNull(attribution)
      })
      if (Option.isSome(attribution)) {
        yield* referrals.checkoutStarted(attribution.value, { sessionId: session.id, domain })
      }
      return session
    })

  /**
   * The marketplace's sale of a live listing at an agreed price (an accepted or countered offer),
   * for the buyer's e-mail: a session whose link the buyer receives. Runs in the caller's
   * transaction (the listing lock is the caller's).
   */
  const openForOffer = (domain: string, priceCents: number, buyerEmail: string) =>
    openListing("marketplace", "live", domain, {
      domain,
      partnerId: MARKETPLACE_PARTNER_ID,
      credentialId: null,
      referral: null,
      buyerEmail,
      priceCents
    })

  const sessionFor = (id: string, partner: PartnerIdentity) =>
    Effect.flatMap(
      repo.byId(id),
      (s) =>
        Option.isSome(s) && s.value.partner_id === partner.partnerId && s.value.environment === partner.environment &&
          s.value.kind === "partner"
          ? Effect.succeed(s.value)
          : Effect.fail(CheckoutSessionNotFound.of(id))
    )

  const isExpired = (s: SessionRow, now: number) =>
    s.status === "expired" || (s.status === "open" && s.expires_at.getTime() <= now)

  /** The session a `pt` link names: tampered (400), expired (410) or the session. */
  const fromToken = (pt: string | undefined) =>
    Effect.gen(function*() {
      if (pt === undefined || pt.length > 2000) return { _tag: "Tampered" } as TokenCheck
      const t = secrets.verify<{ s: string; x: number }>(PT_PURPOSE, pt)
      if (Option.isNone(t) || typeof t.value.s !== "string" || typeof t.value.x !== "number") {
        return { _tag: "Tampered" } as TokenCheck
      }
      const now = yield* Clock.currentTimeMillis
      const s = yield* repo.byId(t.value.s)
      if (Option.isNone(s)) return { _tag: "Tampered" } as TokenCheck
      if (s.value.status === "paid" || s.value.status === "refunded") {
        return { _tag: "Ok", session: s.value } as TokenCheck
      }
      if (t.value.x <= now || isExpired(s.value, now)) {
        return { _tag: "Expired", session: s.value } as TokenCheck
      }
      return { _tag: "Ok", session: s.value } as TokenCheck
    })

  /** While another seller's quote holds the session's listing: until when (the page shows no form). */
  const heldUntil = (s: SessionRow) =>
    s.kind === "cart" || s.domain === null || s.partner_id === null
      ? Effect.succeed(Option.none<Date>())
      : listings.heldAgainst(s.environment, s.domain, s.partner_id)

  const afterPaid = (s: SessionRow) => (s.return_url ? returnAddress(s.return_url, s.id, "paid") : null)

  /**
   * The session is paid at the provider: create its one order (or fulfil its cart) in one
   * transaction. Safe to call any number of times, from anywhere. `ref` must be the payment the
   * service started for the session; `reported` (a provider's event or poll answer) must match it.
   */
  const complete = (sessionId: string, ref: string, reported?: ReportedPayment) =>
    Effect.gen(function*() {
      const result = yield* repo.transaction(
        Effect.gen(function*() {
          const found = yield* repo.lockById(sessionId)
          if (Option.isNone(found)) return { session: null, refund: false, cartPaid: false }
          const s = found.value
          if (s.status === "paid" || s.status === "refunded") return { session: s, refund: false, cartPaid: false }
          const mismatch = s.payment_ref !== ref
            ? "not the payment started for this session"
            : reported
            ? paymentMismatch(s, reported)
            : undefined
          if (mismatch !== undefined) {
            yield* Effect.logWarning("checkout: a reported payment matches no payment of ours; ignored").pipe(
              Effect.annotateLogs({ session: s.id, payment: reported?.ref ?? ref, reason: mismatch })
            )
            return { session: s, refund: false, cartPaid: false }
          }
          if (s.kind === "cart") {
            yield* fulfilment.paid({ cartId: s.cart_id!, sessionId: s.id })
            yield* repo.markPaid(s.id, null)
            return { session: { ...s, status: "paid" as const }, refund: false, cartPaid: true }
          }
          // A hold taken after this payment was admitted refuses it too: the charge is refunded.
          const listing = yield* listings.lockForSale(s.environment, s.domain!, s.partner_id!).pipe(
            Effect.catchTag("ListingHeld", () => Effect.succeed(Option.none()))
          )
          const open = Option.isSome(listing)
            ? yield* orders.openOrderOnListing(listing.value.id).pipe(Effect.orDie)
            : Option.none()
          if (
            Option.isNone(listing) || listing.value.id !== s.listing_id || listing.value.status === "sold" ||
            listing.value.status === "withdrawn" || Option.isSome(open)
          ) {
            // The cash came in and is owed back: booked now, returned when the provider confirms.
            yield* repo.setStatus(s.id, "refunded", "the domain was sold to someone else; the payment was refunded")
            yield* postPaymentTaken(books, unsold(s))
            return { session: { ...s, status: "refunded" as const }, refund: true, cartPaid: false }
          }
          const referral = s.referral_partner_id !== null
          const order = yield* orders.recordPaidSale({
            partnerId: referral ? s.referral_partner_id! : s.partner_id!,
            credentialId: s.credential_id ?? (referral ? `referral:${s.referral_link_id}` : "marketplace"),
            environment: s.environment,
            listingId: s.listing_id!,
            domain: s.domain!,
            priceCents: s.price_cents,
            currency: s.currency,
            paymentRef: reported?.paymentId ?? ref,
            paymentModel: referral ? "referral" : "hosted_checkout",
            checkoutSessionId: s.id,
            referralLinkId: s.referral_link_id,
            buyer: {
              email: s.buyer_email ?? "",
              ...(s.buyer_name ? { name: s.buyer_name } : {}),
              ...(s.buyer_country ? { country: s.buyer_country } : {})
            },
            returnUrl: s.return_url,
            cancelUrl: s.cancel_url,
            actor: `checkout:${s.id}`
          }).pipe(Effect.orDie)
          yield* repo.markPaid(s.id, order.id)
          return { session: { ...s, status: "paid" as const, order_id: order.id }, refund: false, cartPaid: false }
        })
      )
      // The cart's job was enqueued in the transaction, when no worker could see it: wake them now.
      if (result.cartPaid && result.session) {
        yield* fulfilment.committed({ cartId: result.session.cart_id!, sessionId: result.session.id })
      }
      if (result.refund && result.session) yield* refundUnsold(result.session)
      return result.session
    })

  /** The listing hold a session's payment took, given back (a no-op once anything replaced it). */
  const releaseHold = (s: SessionRow) => {
    const held = paymentHold(s)
    return held === null || s.listing_id === null ? Effect.void : listings.release(s.listing_id, held)
  }

  /**
   * An attempt that ended unpaid (declined, cancelled, abandoned; `ref` null: interrupted before
   * the provider heard of it) reopens its session and gives its listing hold back, in one
   * transaction; only while `ref` is still the session's current attempt.
   */
  const giveBack = (sessionId: string, ref: string | null, message: string) =>
    repo.transaction(Effect.gen(function*() {
      const found = yield* repo.lockById(sessionId)
      if (Option.isNone(found)) return
      const s = found.value
      if (s.payment_ref !== ref || (s.status !== "processing" && s.status !== "requires_action")) return
      yield* ref === null ? repo.releaseInterrupted(s.id) : repo.releaseAttempt(s.id, ref, message)
      yield* releaseHold(s)
    }))

  const unsold = (s: SessionRow) => ({
    sessionId: s.id,
    partnerId: s.partner_id!,
    environment: s.environment,
    currency: s.currency,
    amountCents: s.price_cents
  })

  /**
   * Sends a refused session's refund (idempotent at the provider by the payment's reference) and,
   * once the provider took it, records it sent with its ledger posting in one transaction. A
   * refusal leaves it for the next reconciliation run. True when the refund is recorded.
   */
  const refundUnsold = (s: SessionRow) =>
    Effect.gen(function*() {
      if (s.payment_ref === null) return false
      const ok = yield* providerOf(s).refund(s.payment_ref)
      if (!ok) {
        yield* Effect.logWarning("checkout: refund of a payment for a domain sold meanwhile refused; retried next run")
          .pipe(Effect.annotateLogs({ session: s.id }))
        return false
      }
      return yield* repo.transaction(Effect.gen(function*() {
        if (!(yield* repo.markRefundSent(s.id))) return false
        yield* postPaymentReturned(books, unsold(s))
        return true
      }))
    })

  /** Applies a provider's answer about the current attempt of a session. */
  const settleOutcome = (s: SessionRow, ref: string, outcome: PaymentOutcome): Effect.Effect<PayResult> =>
    Effect.gen(function*() {
      switch (outcome.status) {
        case "succeeded": {
          const paid = yield* complete(s.id, ref, outcome.payment)
          if (paid?.status === "refunded") {
            return {
              _tag: "Unavailable",
              message: `${s.domain} is no longer available. Your payment was refunded.`
            } as const
          }
          if (paid?.status !== "paid") {
            return {
              _tag: "Pending",
              message: "We could not confirm this payment yet. This page will show the result."
            } as const
          }
          return { _tag: "Paid", session: paid, redirect: afterPaid(s) } as const
        }
        case "declined":
          yield* giveBack(s.id, ref, outcome.message)
          return { _tag: "Declined", message: outcome.message } as const
        case "requires_action":
          yield* repo.markRequiresAction(s.id, ref)
          return { _tag: "RequiresAction", redirectUrl: outcome.redirectUrl } as const
        case "unknown":
          return {
            _tag: "Pending",
            message:
              "We are waiting for your bank's answer. This page will show the result; you will not be charged twice."
          } as const
      }
    })

  /** Whether the session's page takes the card itself (sandbox); a hosted provider takes it on its own page. */
  const takesCard = (s: SessionRow) => providerOf(s).flow === "card"

  /**
   * Pays a session: with the `card` flow, charges the form's card; with a `hosted` provider, makes
   * the provider's payment page and answers `RequiresAction` with its URL (the buyer pays there).
   */
  const pay = (sessionId: string, form: BuyerForm): Effect.Effect<PayResult> =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const before = yield* repo.byId(sessionId)
      const hosted = Option.isSome(before) && !takesCard(before.value)
      let card: Card | null = null
      if (!hosted) {
        const checked = checkCard({ number: form.cardNumber, exp: form.cardExp, cvc: form.cardCvc }, new Date(now))
        if (!checked.ok) return { _tag: "Invalid", field: checked.field, message: checked.message } as const
        card = checked.card
      }
      // 1. Reserve: the session and its listing, locked, in one transaction.
      const reserved = yield* repo.transaction(
        Effect.gen(function*() {
          const found = yield* repo.lockById(sessionId)
          if (Option.isNone(found)) return { _tag: "Gone" } as const
          const s = found.value
          if (s.status === "paid") return { _tag: "AlreadyPaid", session: s } as const
          if (s.status === "processing" || s.status === "requires_action") return { _tag: "InProgress" } as const
          if (s.status !== "open" || s.expires_at.getTime() <= now) return { _tag: "Gone" } as const
          if (s.kind !== "cart") {
            // The reservation rule before any charge: a session opened before another seller's
            // quote is refused here, while its hold lasts.
            const claimed = yield* Effect.either(listings.lockForSale(s.environment, s.domain!, s.partner_id!))
            if (claimed._tag === "Left") return { _tag: "Held", until: claimed.left.heldUntil } as const
            const listing = claimed.right
            if (
              Option.isNone(listing) || listing.value.id !== s.listing_id || listing.value.status !== "active" ||
              listing.value.locked
            ) {
              return { _tag: "Unavailable" } as const
            }
            const open = yield* orders.openOrderOnListing(listing.value.id).pipe(Effect.orDie)
            if (Option.isSome(open)) return { _tag: "Unavailable" } as const
            if (yield* repo.payingOnListing(listing.value.id, s.id)) return { _tag: "Unavailable" } as const
            // Held for the session's seller while the buyer pays (claimed above, so never refused).
            yield* listings.hold(listing.value, s.partner_id!, new Date(now + PAYMENT_HOLD_MS)).pipe(Effect.orDie)
          }
          const provider = providerOf(s)
          const started = yield* repo.startPayment(s.id, {
            provider: provider.name,
            email: form.email,
            name: form.name,
            country: form.country,
            brand: card?.brand ?? null,
            last4: card?.last4 ?? null,
            since: new Date(now)
          })
          return { _tag: "Reserved", session: started } as const
        })
      )
      switch (reserved._tag) {
        case "Gone":
          return {
            _tag: "Unavailable",
            message: "This checkout link has expired. Ask the seller for a new one."
          } as const
        case "AlreadyPaid":
          return { _tag: "Paid", session: reserved.session, redirect: afterPaid(reserved.session) } as const
        case "InProgress":
          return {
            _tag: "Pending",
            message: "A payment for this checkout is already in progress. This page will show the result."
          } as const
        case "Unavailable":
          return {
            _tag: "Unavailable",
            message: "This domain is no longer available: someone else is buying it. You have not been charged."
          } as const
        case "Held":
          return { _tag: "Unavailable", message: reservedMessage(reserved.until) } as const
      }
      const s = reserved.session
      const provider = providerOf(s)
      const returnUrl = `${config.baseUrl}/checkout/return?pt=${encodeURIComponent(tokenOf(s))}`
      const start: PaymentStart = {
        sessionId: s.id,
        attempt: s.attempt,
        amountCents: s.price_cents,
        currency: s.currency,
        email: form.email,
        description: s.domain ? `Domain ${s.domain}` : `Renewals (${s.id})`,
        lines: linesOf(s),
        card,
        returnUrl,
        cancelUrl: `${returnUrl}&cancelled=1`
      }
      // 2. The provider's reference is stored before any charge (reconciliation can ask about it).
      const created = yield* Effect.either(provider.create(start))
      if (created._tag === "Left") {
        yield* Effect.logWarning("checkout: the payment provider refused or did not answer").pipe(
          Effect.annotateLogs({ session: s.id, reason: created.left.message })
        )
        yield* repo.transaction(Effect.zipRight(
          repo.setStatus(s.id, "open", "the payment provider is unavailable"),
          releaseHold(s)
        ))
        return {
          _tag: "Declined",
          message: "The payment service is unavailable right now. You have not been charged; try again in a minute."
        } as const
      }
      const { redirectUrl, ref } = created.right
      yield* repo.setPaymentRef(s.id, s.attempt, ref)
      // 3. Charge: here (card), or on the provider's page, which the buyer is sent to (hosted).
      if (provider.flow === "hosted") {
        yield* repo.markRequiresAction(s.id, ref)
        return { _tag: "RequiresAction", redirectUrl } as const
      }
      const outcome = yield* provider.confirm(ref, start, returnUrl)
      return yield* settleOutcome({ ...s, payment_ref: ref }, ref, outcome)
    })

  /** After a confirmation step (sandbox: our own page; stripe: the bank's redirect back). */
  const afterAction = (sessionId: string, sandboxConfirmed: boolean): Effect.Effect<PayResult> =>
    Effect.gen(function*() {
      const found = yield* repo.byId(sessionId)
      if (Option.isNone(found)) return { _tag: "Unavailable", message: "Unknown checkout." } as const
      const s = found.value
      if (s.status === "paid") return { _tag: "Paid", session: s, redirect: afterPaid(s) } as const
      if (s.payment_ref === null || (s.status !== "requires_action" && s.status !== "processing")) {
        return { _tag: "Declined", message: s.last_error ?? "There is no payment to confirm. Start again." } as const
      }
      const provider = providerOf(s)
      const outcome = sandboxConfirmed
        ? yield* provider.completeAction(s.payment_ref)
        : yield* provider.retrieve(s.payment_ref)
      return yield* settleOutcome(s, s.payment_ref, outcome)
    })

  /** The buyer gave up on the provider's page (its cancel link): stop that payment, give the domain back. */
  const cancelAttempt = (sessionId: string): Effect.Effect<PayResult> =>
    Effect.gen(function*() {
      const found = yield* repo.byId(sessionId)
      if (Option.isNone(found)) return { _tag: "Unavailable", message: "Unknown checkout." } as const
      const s = found.value
      if (s.payment_ref === null || (s.status !== "requires_action" && s.status !== "processing")) {
        return yield* afterAction(s.id, false)
      }
      const outcome = yield* providerOf(s).cancel(s.payment_ref)
      return yield* settleOutcome(
        s,
        s.payment_ref,
        outcome.status === "declined"
          ? { status: "declined", message: "You cancelled the payment. Nothing was charged." }
          : outcome
      )
    })

  /**
   * A provider's event (signature verified by the caller). It acts only on a payment the service
   * started: a paid one completes its session (checked by `complete`), a failed or expired one
   * gives the session's reservation back; everything else is logged and ignored.
   */
  const providerEvent = (event: unknown) =>
    Effect.gen(function*() {
      const read = providers.live.readEvent(event)
      const type = typeof (event as { type?: unknown })?.type === "string" ? (event as { type: string }).type : "?"
      if (Option.isNone(read)) {
        yield* Effect.logInfo("checkout: provider event ignored").pipe(Effect.annotateLogs({ type }))
        return
      }
      const { outcome, payment } = read.value
      const sessionId = yield* repo.sessionOfPayment(payment.ref)
      const session = Option.isSome(sessionId) ? yield* repo.byId(sessionId.value) : Option.none<SessionRow>()
      const mismatch = Option.isNone(session)
        ? "no session pays with it"
        : session.value.status === "paid" || session.value.status === "refunded"
        ? undefined // a redelivery: `complete` finds it paid
        : paymentMismatch(session.value, payment)
      if (Option.isNone(session) || mismatch !== undefined) {
        yield* Effect.logWarning("checkout: provider event about no payment of ours; ignored").pipe(
          Effect.annotateLogs({ type, payment: payment.ref, reason: mismatch ?? "" })
        )
        return
      }
      if (outcome.status === "succeeded") yield* complete(session.value.id, payment.ref, payment)
      // Guarded by the reference: only the session's current payment gives its reservation back.
      if (outcome.status === "declined") yield* giveBack(session.value.id, payment.ref, outcome.message)
    })

  /** Sessions stuck in `processing`: ask the provider and finish them (boot and every interval). */
  const reconcile = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const stuck = yield* repo.stuck(new Date(now - Duration.toMillis(checkoutSettings.reconcileAfter)))
    let completed = 0
    for (const { id } of stuck) {
      const found = yield* repo.byId(id)
      if (Option.isNone(found)) continue
      const s = found.value
      if (s.payment_ref === null) {
        // Died before the provider heard of it: nothing was charged.
        yield* giveBack(s.id, null, "the payment was interrupted")
        continue
      }
      const outcome = yield* providerOf(s).retrieve(s.payment_ref)
      if (outcome.status === "requires_action") {
        // The buyer may still confirm or pay; after ABANDONED_ACTION the provider is told to stop
        // the payment and, once it has, the reservation is given back.
        if (s.processing_since !== null && now - s.processing_since.getTime() > ABANDONED_ACTION_MS) {
          const r = yield* settleOutcome(s, s.payment_ref, yield* providerOf(s).cancel(s.payment_ref))
          if (r._tag === "Paid") completed++
        }
        continue
      }
      const r = yield* settleOutcome(s, s.payment_ref, outcome)
      if (r._tag === "Paid") completed++
    }
    let refunded = yield* refundReversed
    for (const { id } of yield* repo.unsoldToRefund) {
      const found = yield* repo.byId(id)
      if (Option.isSome(found) && (yield* refundUnsold(found.value))) refunded++
    }
    return { checked: stuck.length, completed, refunded }
  })

  /**
   * Money back: a paid session whose order was refunded or cancelled (partner `POST /refunds`,
   * admin cancel) is refunded at its provider, then marked `refunded`. The provider call is
   * idempotent by the payment's reference, so a crash between it and the mark only repeats it
   * harmlessly; a refusal leaves the session `paid` and the next run tries again.
   */
  const refundReversed = Effect.gen(function*() {
    const due = yield* repo.paidButReversed
    let refunded = 0
    for (const { id } of due) {
      const found = yield* repo.byId(id)
      if (Option.isNone(found) || found.value.payment_ref === null) continue
      const ok = yield* providerOf(found.value).refund(found.value.payment_ref)
      if (!ok) {
        yield* Effect.logWarning("checkout refund refused by the provider; retried next run").pipe(
          Effect.annotateLogs({ session: id })
        )
        continue
      }
      yield* repo.markRefunded(id)
      refunded++
    }
    return refunded
  })

  const openCart = (cart: CartInput) =>
    Effect.gen(function*() {
      const existing = yield* repo.byCart(cart.cartId)
      if (Option.isSome(existing)) return existing.value
      const now = yield* Clock.currentTimeMillis
      const created = yield* repo.insert({
        id: makeId("cs"),
        kind: "cart",
        partnerId: null,
        credentialId: null,
        environment: "live",
        listingId: null,
        domain: null,
        priceCents: cart.totalCents,
        currency: cart.currency,
        reference: cart.cartId,
        returnUrl: null,
        cancelUrl: null,
        buyerEmail: cart.buyerEmail,
        referral: null,
        cart: { cartId: cart.cartId, userId: cart.userId, items: cart.items },
        expiresAt: new Date(now + Duration.toMillis(ttl))
      })
      if (Option.isSome(created)) return created.value
      return Option.getOrThrow(yield* repo.byCart(cart.cartId))
    })

  /**
   * Gives `amountCents` of a cart's payment back: all of it (the session becomes `refunded`), or
   * part of it under `key` (the refused items; the provider's Idempotency-Key and our record of
   * it, so a retry after a crash refunds and counts it once).
   */
  const refundCart = (input: { readonly cartId: string; readonly amountCents: number; readonly key: string }) =>
    Effect.gen(function*() {
      const found = yield* repo.byCart(input.cartId)
      if (Option.isNone(found) || found.value.payment_ref === null) return false
      const s = found.value
      const whole = input.amountCents === s.price_cents
      // The whole payment went back already (a retry after a crash): nothing more to refund.
      if (s.status === "refunded") return whole
      if (s.status !== "paid") return false
      const key = createHash("sha256").update(input.key).digest("hex").slice(0, 32)
      const refunded = yield* providerOf(s).refund(
        s.payment_ref!,
        whole ? undefined : { amountCents: input.amountCents, key }
      )
      if (!refunded) return false
      // All of it back: the session is `refunded`, like any session whose payment was given back.
      if (whole) yield* repo.markRefunded(s.id)
      else yield* repo.recordPartialRefund(s.id, key, input.amountCents)
      return true
    })

  return {
    openForPartner,
    offer,
    openForMarketplace,
    openForOffer,
    openCart,
    refundCart,
    sessionFor,
    fromToken,
    tokenOf,
    checkoutPath,
    checkoutUrl,
    takesCard,
    pay,
    afterAction,
    cancelAttempt,
    complete,
    providerEvent,
    reconcile,
    byId: repo.byId,
    heldUntil,
    isExpired
  }
})

export class Checkout extends Context.Tag("app/Checkout")<Checkout, Effect.Effect.Success<typeof make>>() {
  static readonly layer = Layer.effect(Checkout, make).pipe(
    Layer.provide(Layer.mergeAll(CheckoutRepo.Live, Books.Live))
  )
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
