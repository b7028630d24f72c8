/**
 * Recording a sale: a partner's quote (the listing held for it), a partner-collected order, and
 * a sale the service collected itself (a paid checkout, a referral sale).
 *
 * The contract (Orders.ts's header): recording an order locks the listing row and reads what its
 * checks need in one round trip, checks price, quote and reservation, then writes the order, its
 * ledger posting, its timeline and its event (outbox, last) in the caller's transaction.
 */
import { Clock, Duration, Effect, Option } from "effect"
import { initialStatus } from "../../domain/OrderState.js"
import { makeId } from "../../platform/Ids.js"
import type { PartnerEnvironment, PartnerIdentity } from "../Auth.js"
import { DomainNotListed } from "../inventory/Errors.js"
import {
  CurrencyMismatch,
  DomainNotAvailable,
  InvalidQuote,
  NoBuyNowPrice,
  PriceMismatch,
  QuoteAlreadyUsed,
  QuoteExpired
} from "./Errors.js"
import type { OrderInput, OrdersDeps } from "./Orders.js"
import type { ListingForOrder, OrderRow } from "./Repo.js"
import { eventOrder } from "./View.js"

const QUOTE_PURPOSE = "partner-quote"

interface QuoteToken {
  readonly q: string
  readonly p: string
  readonly e: PartnerEnvironment
  readonly d: string
  readonly c: number
  readonly cur: string
  readonly x: number
}

export const createQuote = (d: OrdersDeps, partner: PartnerIdentity, domain: string) =>
  d.transaction(
    Effect.gen(function*() {
      // Another partner's live hold refuses the quote here (ListingHeld, 409 with held_until).
      const listing = yield* d.listings.lockForSale(partner.environment, domain, partner.partnerId)
      if (Option.isNone(listing) || listing.value.status === "sold" || listing.value.status === "withdrawn") {
        return yield* DomainNotListed.of(domain)
      }
      const l = listing.value
      if (l.status !== "active" || l.locked) {
        return yield* new DomainNotAvailable({
          message: `${domain} is not available: an order is already in progress`
        })
      }
      if (l.bin_price_cents === null) {
        return yield* new NoBuyNowPrice({ message: `${domain} has no buy-now price and cannot be quoted` })
      }
      const now = yield* Clock.currentTimeMillis
      const id = makeId("qt")
      const expiresAt = new Date(now + Duration.toMillis(d.settings.quoteTtl))
      // The quote's hold lives on the listing, where every channel's lock sees it.
      yield* d.listings.hold(l, partner.partnerId, expiresAt)
      yield* d.repo.insertQuote({
        id,
        partnerId: partner.partnerId,
        environment: partner.environment,
        listingId: l.id,
        domain,
        priceCents: l.bin_price_cents,
        currency: l.currency,
        expiresAt
      })
      const token: QuoteToken = {
        q: id,
        p: partner.partnerId,
        e: partner.environment,
        d: domain,
        c: l.bin_price_cents,
        cur: l.currency,
        x: expiresAt.getTime()
      }
      return {
        quote_id: `qt_${d.secrets.sign(QUOTE_PURPOSE, token)}`,
        domain,
        price_cents: l.bin_price_cents,
        currency: l.currency,
        expires_at: expiresAt.toISOString()
      }
    })
  )

/** The order's quote token, checked against the partner and the domain (undefined: no quote). */
const verifyQuote = (d: OrdersDeps, partner: PartnerIdentity, input: OrderInput, domain: string) =>
  Effect.gen(function*() {
    if (input.quote_id === undefined) return undefined
    const token = input.quote_id.startsWith("qt_") ? input.quote_id.slice(3) : input.quote_id
    const verified = d.secrets.verify<QuoteToken>(QUOTE_PURPOSE, token)
    if (Option.isNone(verified)) return yield* InvalidQuote.of("not a valid quote token")
    const quote = verified.value
    if (quote.p !== partner.partnerId || quote.e !== partner.environment) {
      return yield* InvalidQuote.of("this quote was issued to another credential")
    }
    if (quote.d !== domain) return yield* InvalidQuote.of(`this quote is for ${quote.d}, not ${domain}`)
    return quote
  })

/** The locked listing's checks: currency, quote, open order, lock, reservation, price. The price sold at. */
const admit = (
  d: OrdersDeps,
  partner: PartnerIdentity,
  input: OrderInput,
  domain: string,
  l: ListingForOrder,
  quote: QuoteToken | undefined,
  now: number
) =>
  Effect.gen(function*() {
    if (input.currency !== l.currency) return yield* CurrencyMismatch.of(l.currency)
    if (quote !== undefined) {
      if (quote.x <= now) {
        return yield* new QuoteExpired({
          message: `The quote expired at ${new Date(quote.x).toISOString()} (quotes are valid for ${
            Duration.format(d.settings.quoteTtl)
          }); request a new quote`
        })
      }
      if (!l.quote_found) return yield* InvalidQuote.of("unknown quote")
      if (l.quote_used_by_order !== null) {
        return yield* new QuoteAlreadyUsed({ message: "This quote was already used for an order" })
      }
    }
    // Read after the listing lock, so they see what its previous holder committed: an open
    // order on the listing, another partner's reservation.
    if (l.open_order !== null || l.status === "sold") {
      return yield* new DomainNotAvailable({ message: `${domain} already has an order` })
    }
    if (l.locked) return yield* new DomainNotAvailable({ message: `${domain} is locked and cannot be sold now` })
    // The reservation rule (market's): another partner's live hold refuses the order.
    yield* d.listings.admit(l, partner.partnerId)
    const price = quote?.c ?? l.bin_price_cents
    if (price === null) {
      return yield* new NoBuyNowPrice({ message: `${domain} has no buy-now price` })
    }
    if (input.expected_price !== price) {
      return yield* PriceMismatch.of(input.expected_price, price, quote !== undefined)
    }
    return price
  })

/** The admitted order written: the order holding its listing, its posting, its event and timeline. */
const record = (
  d: OrdersDeps,
  partner: PartnerIdentity,
  input: OrderInput,
  domain: string,
  l: ListingForOrder,
  quote: QuoteToken | undefined,
  price: number
) =>
  Effect.gen(function*() {
    const status = initialStatus(price, d.settings.reviewThresholdCents)
    const orderId = makeId("ord")
    let order: OrderRow = yield* d.repo.insertOrderHoldingListing({
      id: orderId,
      partnerId: partner.partnerId,
      credentialId: partner.credentialId,
      environment: partner.environment,
      listingId: l.id,
      domain,
      status: "EXTERNALLY_PAID",
      salePriceCents: price,
      currency: l.currency,
      externalPaymentRef: input.external_payment_ref,
      quoteId: quote?.q ?? null,
      buyer: input.buyer,
      returnUrl: input.return_url ?? null,
      cancelUrl: input.cancel_url ?? null
    }, d.listings.holdFragment(l.id))
    yield* d.books.recordSale(order)
    // The event carries the order as it is once recorded: MANUAL_REVIEW when the review rule holds it.
    if (status === "MANUAL_REVIEW") {
      order = yield* d.repo.updateStatus(orderId, "MANUAL_REVIEW")
    }
    // Last: the outbox append holds the partner's event lock until commit. Its timeline row
    // goes in the same round trip.
    yield* d.outbox.append(
      {
        partnerId: partner.partnerId,
        environment: partner.environment,
        type: "order.recorded",
        data: { order: eventOrder(order) }
      },
      d.repo.timelineAfterEvent({ orderId, status: "EXTERNALLY_PAID", actor: `partner:${partner.keyId}` })
    )
    // Paid and not held: its delivery is queued with it (src/fulfilment).
    if (status !== "MANUAL_REVIEW") yield* d.deliveries.deliverable(order)
    if (status === "MANUAL_REVIEW") {
      yield* d.repo.addTimeline({
        orderId,
        kind: "status",
        status: "MANUAL_REVIEW",
        fromStatus: "EXTERNALLY_PAID",
        actor: "system",
        note: `held for manual review: amount at or above ${d.settings.reviewThresholdCents} cents`
      })
    }
    return order
  })

/** Records a partner-collected sale. Runs in the caller's transaction. */
export const createOrder = (d: OrdersDeps, partner: PartnerIdentity, input: OrderInput, domain: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const quote = yield* verifyQuote(d, partner, input, domain)
    const listing = yield* d.repo.lockListingForOrder(partner.environment, domain, quote?.q ?? null)
    if (Option.isNone(listing) || listing.value.status === "withdrawn") return yield* DomainNotListed.of(domain)
    const price = yield* admit(d, partner, input, domain, listing.value, quote, now)
    return yield* record(d, partner, input, domain, listing.value, quote, price)
  })

export interface PaidSale {
  readonly partnerId: string
  readonly credentialId: string
  readonly environment: PartnerEnvironment
  readonly listingId: string
  readonly domain: string
  readonly priceCents: number
  readonly currency: string
  readonly paymentRef: string
  readonly paymentModel: "hosted_checkout" | "referral"
  readonly checkoutSessionId: string
  readonly referralLinkId: string | null
  readonly buyer: {
    readonly email: string
    readonly name?: string | undefined
    readonly country?: string | undefined
  }
  readonly returnUrl: string | null
  readonly cancelUrl: string | null
  readonly actor: string
}

/**
 * Records a sale the service collected itself (a paid hosted checkout, the marketplace's own
 * sale, a referral sale): status PAID, event `order.paid`, the ledger posting, the listing
 * pending. Runs in the caller's transaction, which already holds the listing row
 * (`lockListing`) and has checked it is still for sale. One order per checkout session (a
 * unique index): a second call for the same session fails, never sells twice.
 */
export const recordPaidSale = (d: OrdersDeps, input: PaidSale) =>
  Effect.gen(function*() {
    const orderId = makeId("ord")
    const order = yield* d.repo.insertOrderHoldingListing({
      id: orderId,
      partnerId: input.partnerId,
      credentialId: input.credentialId,
      environment: input.environment,
      listingId: input.listingId,
      domain: input.domain,
      status: "PAID",
      salePriceCents: input.priceCents,
      currency: input.currency,
      externalPaymentRef: input.paymentRef,
      quoteId: null,
      buyer: input.buyer,
      returnUrl: input.returnUrl,
      cancelUrl: input.cancelUrl,
      paymentModel: input.paymentModel,
      checkoutSessionId: input.checkoutSessionId,
      referralLinkId: input.referralLinkId
    }, d.listings.holdFragment(input.listingId))
    yield* d.books.recordSale(order)
    const eventId = yield* d.outbox.append({
      partnerId: input.partnerId,
      environment: input.environment,
      type: "order.paid",
      data: { order: eventOrder(order), checkout_session_id: input.checkoutSessionId }
    })
    yield* d.repo.addTimeline({ orderId, kind: "status", status: "PAID", eventId, actor: input.actor })
    yield* d.deliveries.deliverable(order)
    return order
  })
