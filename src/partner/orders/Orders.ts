/**
 * Quotes, partner-collected orders and the order lifecycle.
 *
 * - A quote fixes the listing's buy-now price for 10 minutes and holds the domain for the
 *   partner on the listing itself (`Market.sales.hold`, src/domain/Reservation.ts), so every
 *   channel's lock (`Market.sales.lockForSale`) refuses another seller with `ListingHeld` (409
 *   `conflict`, `details.held_until`): another partner's quote, order or checkout session, a
 *   `/buy/` purchase, a brokerage deal. `quote_id` is a token signed with SERVICE_SECRET, bound
 *   to partner, environment, domain and price.
 * - Recording an order locks the listing row and reads what its checks need in one round trip
 *   (`OrderRepo.lockListingForOrder`), checks price/quote/reservation, inserts the order, its
 *   timeline, the `order.recorded` event (outbox) and marks the listing `pending` (market's
 *   statement, `Market.sales.holdFragment`), all in the caller's transaction (the
 *   Idempotency-Key store runs it transactionally).
 * - Every lifecycle move (admin, sandbox advance, refund, settlement) runs through `transition`:
 *   one transaction holding the order row lock writes the status, the timeline, the event and
 *   the listing's status. A refused move fails with `OrderMoveNotAllowed` and the reason.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { initialStatus, nextSandboxAction, type OrderAction, transition } from "../../domain/OrderState.js"
import { partnerMayRefund } from "../../domain/RefundAuthority.js"
import { Market } from "../../market/Market.js"
import { transactionOf } from "../../platform/db/SqlTransaction.js"
import { makeId } from "../../platform/Ids.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import type { PartnerEnvironment, PartnerIdentity } from "../Auth.js"
import { Outbox } from "../events/Outbox.js"
import { DomainNotListed } from "../inventory/Errors.js"
import { Books } from "../ledger/Books.js"
import { PartnerConfig } from "../Settings.js"
import { OrderDeliveries } from "./Deliveries.js"
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
import { type OrderFilters, OrderRepo } from "./Repo.js"
import { eventOrder, orderDetailOf, orderOf } from "./View.js"

export { eventOrder } from "./View.js"

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

export interface OrderInput {
  readonly domain: string
  readonly expected_price: number
  readonly currency: string
  readonly external_payment_ref: string
  readonly buyer: { readonly email: string; readonly name?: string | undefined; readonly country?: string | undefined }
  readonly quote_id?: string | undefined
  readonly return_url?: string | undefined
  readonly cancel_url?: string | undefined
}

const make = Effect.gen(function*() {
  const transaction = transactionOf(yield* SqlClient.SqlClient)
  const repo = yield* OrderRepo
  const listings = (yield* Market).sales
  const outbox = yield* Outbox
  const secrets = yield* ServiceSecret
  const partnerSettings = yield* PartnerConfig
  const books = yield* Books
  const deliveries = yield* OrderDeliveries

  const createQuote = (partner: PartnerIdentity, domain: string) =>
    transaction(
      Effect.gen(function*() {
        // Another partner's live hold refuses the quote here (ListingHeld, 409 with held_until).
        const listing = yield* listings.lockForSale(partner.environment, domain, partner.partnerId)
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
        const expiresAt = new Date(now + Duration.toMillis(partnerSettings.quoteTtl))
        // The quote's hold lives on the listing, where every channel's lock sees it.
        yield* listings.hold(l, partner.partnerId, expiresAt)
        yield* repo.insertQuote({
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
          quote_id: `qt_${secrets.sign(QUOTE_PURPOSE, token)}`,
          domain,
          price_cents: l.bin_price_cents,
          currency: l.currency,
          expires_at: expiresAt.toISOString()
        }
      })
    )

  /** Records a partner-collected sale. Runs in the caller's transaction. */
  const createOrder = (partner: PartnerIdentity, input: OrderInput, domain: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      let quote: QuoteToken | undefined
      if (input.quote_id !== undefined) {
        const token = input.quote_id.startsWith("qt_") ? input.quote_id.slice(3) : input.quote_id
        const verified = secrets.verify<QuoteToken>(QUOTE_PURPOSE, token)
        if (Option.isNone(verified)) return yield* InvalidQuote.of("not a valid quote token")
        quote = verified.value
        if (quote.p !== partner.partnerId || quote.e !== partner.environment) {
          return yield* InvalidQuote.of("this quote was issued to another credential")
        }
        if (quote.d !== domain) return yield* InvalidQuote.of(`this quote is for ${quote.d}, not ${domain}`)
      }
      const listing = yield* repo.lockListingForOrder(partner.environment, domain, quote?.q ?? null)
      if (Option.isNone(listing) || listing.value.status === "withdrawn") return yield* DomainNotListed.of(domain)
      const l = listing.value
      if (input.currency !== l.currency) return yield* CurrencyMismatch.of(l.currency)
      if (quote !== undefined) {
        if (quote.x <= now) {
          return yield* new QuoteExpired({
            message: `The quote expired at ${new Date(quote.x).toISOString()} (quotes are valid for ${
              Duration.format(partnerSettings.quoteTtl)
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
      yield* listings.admit(l, partner.partnerId)
      const price = quote?.c ?? l.bin_price_cents
      if (price === null) {
        return yield* new NoBuyNowPrice({ message: `${domain} has no buy-now price` })
      }
      if (input.expected_price !== price) {
        return yield* PriceMismatch.of(input.expected_price, price, quote !== undefined)
      }
      const status = initialStatus(price, partnerSettings.reviewThresholdCents)
      const orderId = makeId("ord")
      let order = yield* repo.insertOrderHoldingListing({
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
      }, listings.holdFragment(l.id))
      yield* books.recordSale(order)
      // The event carries the order as it is once recorded: MANUAL_REVIEW when the review rule holds it.
      if (status === "MANUAL_REVIEW") {
        order = yield* repo.updateStatus(orderId, "MANUAL_REVIEW")
      }
      // Last: the outbox append holds the partner's event lock until commit. Its timeline row
      // goes in the same round trip.
      yield* outbox.append(
        {
          partnerId: partner.partnerId,
          environment: partner.environment,
          type: "order.recorded",
          data: { order: eventOrder(order) }
        },
        repo.timelineAfterEvent({ orderId, status: "EXTERNALLY_PAID", actor: `partner:${partner.keyId}` })
      )
      // Paid and not held: its delivery is queued with it (src/fulfilment).
      if (status !== "MANUAL_REVIEW") yield* deliveries.deliverable(order)
      if (status === "MANUAL_REVIEW") {
        yield* repo.addTimeline({
          orderId,
          kind: "status",
          status: "MANUAL_REVIEW",
          fromStatus: "EXTERNALLY_PAID",
          actor: "system",
          note: `held for manual review: amount at or above ${partnerSettings.reviewThresholdCents} cents`
        })
      }
      return order
    })

  /**
   * Records a sale the service collected itself (a paid hosted checkout, the marketplace's own
   * sale, a referral sale): status PAID, event `order.paid`, the ledger posting, the listing
   * pending. Runs in the caller's transaction, which already holds the listing row
   * (`lockListing`) and has checked it is still for sale. One order per checkout session (a
   * unique index): a second call for the same session fails, never sells twice.
   */
  const recordPaidSale = (input: {
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
  }) =>
    Effect.gen(function*() {
      const orderId = makeId("ord")
      const order = yield* repo.insertOrderHoldingListing({
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
      }, listings.holdFragment(input.listingId))
      yield* books.recordSale(order)
      const eventId = yield* outbox.append({
        partnerId: input.partnerId,
        environment: input.environment,
        type: "order.paid",
        data: { order: eventOrder(order), checkout_session_id: input.checkoutSessionId }
      })
      yield* repo.addTimeline({ orderId, kind: "status", status: "PAID", eventId, actor: input.actor })
      yield* deliveries.deliverable(order)
      return order
    })

  const loadOwned = (publicId: string, partner: PartnerIdentity | undefined, forUpdate: boolean) =>
    Effect.gen(function*() {
      const row = yield* repo.orderById(publicId, { forUpdate })
      if (
        Option.isNone(row) ||
        (partner && (row.value.partner_id !== partner.partnerId || row.value.environment !== partner.environment))
      ) {
        return yield* OrderNotFound.of(publicId)
      }
      return row.value
    })

  /** One lifecycle move, in one transaction: status, timeline, event, listing. */
  const move = (
    publicId: string,
    action: OrderAction,
    options: {
      readonly actor: string
      readonly partner?: PartnerIdentity
      readonly note?: string | undefined
      readonly refund?: { reason: string | null }
    }
  ) =>
    transaction(
      Effect.gen(function*() {
        const order = yield* loadOwned(publicId, options.partner, true)
        // A partner refunds only what it sold itself; any other order does not exist for it.
        if (
          options.refund && options.partner &&
          !partnerMayRefund(
            { partnerId: order.partner_id, environment: order.environment, paymentModel: order.payment_model },
            options.partner
          )
        ) return yield* OrderNotFound.of(publicId)
        const t = transition(order.status, action)
        if (!t.ok) return yield* new OrderMoveNotAllowed({ message: t.reason })
        const updated = yield* repo.updateStatus(order.id, t.to)
        const eventId = t.event === null
          ? null
          : yield* outbox.append({
            partnerId: order.partner_id,
            environment: order.environment,
            type: t.event,
            data: { order: eventOrder(updated) }
          })
        if (t.transferStep) {
          yield* repo.addTimeline({
            orderId: order.id,
            kind: "transfer_step",
            step: t.transferStep,
            actor: options.actor
          })
        }
        yield* repo.addTimeline({
          orderId: order.id,
          kind: "status",
          status: t.to,
          fromStatus: t.from,
          eventId,
          actor: options.actor,
          note: options.note ?? null
        })
        if (t.to === "TRANSFER_COMPLETED") yield* listings.setStatus(order.listing_id, "sold")
        // Cleared from manual review: deliverable now.
        if (t.to === "EXTERNALLY_PAID") yield* deliveries.deliverable(updated)
        if (t.to === "REFUNDED" || t.to === "CANCELLED") {
          yield* listings.setStatus(order.listing_id, "active")
          yield* books.reverseSale(updated)
        }
        let refundId: string | null = null
        if (options.refund) {
          refundId = makeId("rf")
          yield* repo.insertRefund({
            id: refundId,
            orderId: order.id,
            partnerId: order.partner_id,
            amountCents: order.sale_price_cents,
            reason: options.refund.reason
          })
        }
        return { order: updated, eventId, refundId }
      })
    )

  const detail = (publicId: string, partner?: PartnerIdentity) =>
    Effect.gen(function*() {
      const order = yield* loadOwned(publicId, partner, false)
      return orderDetailOf(order, yield* repo.timeline(order.id), yield* deliveries.view(order.id))
    })

  const list = (partner: PartnerIdentity, filters: OrderFilters, beforeId: string | null, limit: number) =>
    Effect.map(repo.list(partner.partnerId, partner.environment, filters, beforeId, limit + 1), (rows) => ({
      orders: rows.slice(0, limit),
      hasMore: rows.length > limit
    }))

  const advanceSandbox = (publicId: string, partner: PartnerIdentity) =>
    Effect.gen(function*() {
      const order = yield* loadOwned(publicId, partner, false)
      const action = nextSandboxAction(order.status)
      if (action === undefined) {
        return yield* new OrderMoveNotAllowed({
          message: `Order ${publicId} is ${order.status}: there is no next step`
        })
      }
      return yield* move(publicId, action, { actor: `sandbox:${partner.keyId}`, partner })
    })

  return {
    createQuote,
    createOrder,
    recordPaidSale,
    /** An open order (not refunded/cancelled) on the listing. */
    openOrderOnListing: repo.openOrderOnListing,
    move,
    detail,
    list,
    advanceSandbox,
    /** A delivery step in the order's timeline (src/fulfilment), with the event it wrote, if any. */
    recordTransferStep: (
      publicId: string,
      step: string,
      options: { readonly actor: string; readonly note?: string | null; readonly eventId?: string | null }
    ) =>
      repo.addTimeline({
        orderId: publicId,
        kind: "transfer_step",
        step,
        actor: options.actor,
        note: options.note ?? null,
        eventId: options.eventId ?? null
      }),
    /** Every partner's orders, newest first (operator CLI). */
    listAll: (filters: Parameters<typeof repo.listAll>[0], limit: number) =>
      Effect.map(repo.listAll(filters, limit), (rows) => rows.map(orderOf)),
    /** The partner's refund of a sale it collected itself (src/domain/RefundAuthority.ts); else OrderNotFound. */
    refund: (partner: PartnerIdentity, publicId: string, reason: string | null) =>
      move(publicId, "refund", {
        actor: `partner:${partner.keyId}`,
        partner,
        refund: { reason },
        note: reason ?? undefined
      }),
    /**
     * An operator's refund of any order (admin API, CLI): marketplace, referral and brokerage
     * sales are refunded only this way. The reversing ledger transaction is written with the
     * move; a card-paid order's money goes back at the payment provider through the checkout's
     * reconciliation (src/checkout/Checkout.ts `refundReversed`), as for every refund.
     */
    operatorRefund: (publicId: string, reason: string | null, actor: string) =>
      move(publicId, "refund", { actor, refund: { reason }, note: reason ?? undefined })
  }
})

export class Orders extends Context.Tag("app/PartnerOrders")<Orders, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Orders, make).pipe(
    Layer.provide(Layer.mergeAll(OrderRepo.Live, Outbox.Live, Books.Live))
  )
}
