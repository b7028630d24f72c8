/**
 * What can go wrong quoting, ordering and moving a partner order, as domain errors
 * (platform/http/Errors.ts): each carries its wire code and status; the endpoints declare them with
 * `errorWire`. The codes are the Partner API's (docs/partner.md): several problems share
 * `conflict` or `validation_error`, the class says which one it is. `DomainNotListed` is the
 * inventory's (partner/inventory/Errors.ts): one tag, one class in the whole Api.
 */
import { clipEcho, DomainError } from "../../platform/http/Errors.js"

/** The listing cannot be sold now: an order is open on it, it was sold, or it is locked. */
export class DomainNotAvailable extends DomainError<DomainNotAvailable>()("DomainNotAvailable", {
  code: "conflict",
  status: 409,
  description: "The domain already has an order, or is locked"
}) {}

/** The listing is offer-only: there is no price to quote or to buy at. */
export class NoBuyNowPrice extends DomainError<NoBuyNowPrice>()("NoBuyNowPrice", {
  code: "conflict",
  status: 409,
  description: "The listing has no buy-now price"
}) {}

/** `quote_id` is not a quote this credential may use for this domain (`details: [{path: ["quote_id"], message}]`). */
export class InvalidQuote extends DomainError<InvalidQuote>()("InvalidQuote", {
  code: "validation_error",
  status: 400,
  description: "quote_id is not a valid quote of this credential for this domain"
}) {
  static of(message: string) {
    return new InvalidQuote({ message: `quote_id: ${message}`, details: [{ path: ["quote_id"], message }] })
  }
}

/** The order's currency is not the listing's (`details: [{path: ["currency"], message}]`). */
export class CurrencyMismatch extends DomainError<CurrencyMismatch>()("CurrencyMismatch", {
  code: "validation_error",
  status: 400,
  description: "currency is not the listing's currency"
}) {
  static of(listingCurrency: string) {
    const message = `must be ${listingCurrency}, the listing's currency`
    return new CurrencyMismatch({ message: `currency: ${message}`, details: [{ path: ["currency"], message }] })
  }
}

export class QuoteExpired extends DomainError<QuoteExpired>()("QuoteExpired", {
  code: "quote_expired",
  status: 422,
  description: "The quote is past its validity; request a new one"
}) {}

export class QuoteAlreadyUsed extends DomainError<QuoteAlreadyUsed>()("QuoteAlreadyUsed", {
  code: "conflict",
  status: 409,
  description: "The quote was already used for an order"
}) {}

/** `expected_price` is not the price (`details: {expected_price, price_cents}`). */
export class PriceMismatch extends DomainError<PriceMismatch>()("PriceMismatch", {
  code: "price_mismatch",
  status: 422,
  description: "expected_price differs from the listing (or quoted) price"
}) {
  static of(expectedPrice: number, priceCents: number, quoted: boolean) {
    return new PriceMismatch({
      message: `expected_price ${expectedPrice} differs from the ${
        quoted ? "quoted" : "current listing"
      } price ${priceCents} (USD cents)`,
      details: { expected_price: expectedPrice, price_cents: priceCents }
    })
  }
}

/** No such order (or another partner's, or another environment's). */
export class OrderNotFound extends DomainError<OrderNotFound>()("OrderNotFound", {
  code: "not_found",
  status: 404,
  description: "No such order"
}) {
  static of(publicId: string) {
    return new OrderNotFound({ message: `Order ${clipEcho(publicId)} not found` })
  }
}

/** The order's status does not allow the move (src/domain/OrderState.ts says why). */
export class OrderMoveNotAllowed extends DomainError<OrderMoveNotAllowed>()("OrderMoveNotAllowed", {
  code: "conflict",
  status: 409,
  description: "The order's status does not allow this move"
}) {}
