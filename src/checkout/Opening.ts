/**
 * Opening checkout sessions: for a partner's link, the marketplace's own buy page (attributed to
 * a referral link), an accepted offer, and a renew/restore cart; and what the buy page offers.
 *
 * The contract: one rule (`forSale`) decides whether a listing can be sold, read without a lock
 * for the page and under the listing's row lock for a session; another seller's live hold refuses
 * the session (ListingHeld, 409).
 */
import { Clock, Duration, Effect, Option } from "effect"
import { ListingHeld } from "../market/Errors.js"
import { MARKETPLACE_SELLER } from "../market/Market.js"
import type { PartnerEnvironment, PartnerIdentity } from "../partner/Auth.js"
import { makeId } from "../platform/Ids.js"
import type { Attribution } from "../referrals/Attribution.js"
import type { CartInput } from "./Cart.js"
import type { CheckoutDeps } from "./Checkout.js"
import { DomainNotForSale, DomainNotPriced, ListingUnavailable } from "./Errors.js"

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
  d: CheckoutDeps,
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
      yield* d.listings.lockForSale(environment, domain, input.partnerId),
      input.priceCents === undefined
    )
    const now = yield* Clock.currentTimeMillis
    const created = yield* d.repo.insert({
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
      expiresAt: new Date(now + Duration.toMillis(d.settings.sessionTtl))
    })
    return Option.getOrThrow(created)
  })

export const openForPartner = (d: CheckoutDeps, partner: PartnerIdentity, domain: string, input: OpenInput) =>
  openListing(d, "partner", partner.environment, domain, {
    ...input,
    partnerId: partner.partnerId,
    credentialId: partner.credentialId,
    referral: null
  })

/**
 * What the buy page (`GET /buy/{domain}`) shows: the domain's price in `environment`'s
 * inventory, or why it cannot be bought. Reads only: no session, no lock, no funnel entry.
 */
export const offer = (d: CheckoutDeps, environment: PartnerEnvironment, domain: string) =>
  Effect.gen(function*() {
    const l = yield* forSale(domain, yield* d.market.getListing(environment, domain))
    // The page offers no purchase while another seller's quote holds the name.
    const held = yield* d.listings.heldAgainst(environment, domain, MARKETPLACE_SELLER)
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
export const openForMarketplace = (
  d: CheckoutDeps,
  environment: PartnerEnvironment,
  domain: string,
  referralCookie: string | undefined
) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const attribution = Option.filter(yield* d.referrals.resolve(referralCookie, new Date(now)), (a) =>
      a.environment === environment)
    const session = yield* openListing(d, "marketplace", environment, domain, {
      domain,
      partnerId: MARKETPLACE_PARTNER_ID,
      credentialId: null,
      referral: Option.getOrNull(attribution)
    })
    if (Option.isSome(attribution)) {
      yield* d.referrals.checkoutStarted(attribution.value, { sessionId: session.id, domain })
    }
    return session
  })

/**
 * The marketplace's sale of a live listing at an agreed price (an accepted or countered offer),
 * for the buyer's e-mail: a session whose link the buyer receives. Runs in the caller's
 * transaction (the listing lock is the caller's).
 */
export const openForOffer = (d: CheckoutDeps, domain: string, priceCents: number, buyerEmail: string) =>
  openListing(d, "marketplace", "live", domain, {
    domain,
    partnerId: MARKETPLACE_PARTNER_ID,
    credentialId: null,
    referral: null,
    buyerEmail,
    priceCents
  })

/** The one session of a renew/restore cart (the existing one when the cart opened it before). */
export const openCart = (d: CheckoutDeps, cart: CartInput) =>
  Effect.gen(function*() {
    const existing = yield* d.repo.byCart(cart.cartId)
    if (Option.isSome(existing)) return existing.value
    const now = yield* Clock.currentTimeMillis
    const created = yield* d.repo.insert({
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
      expiresAt: new Date(now + Duration.toMillis(d.settings.sessionTtl))
    })
    if (Option.isSome(created)) return created.value
    return Option.getOrThrow(yield* d.repo.byCart(cart.cartId))
  })
