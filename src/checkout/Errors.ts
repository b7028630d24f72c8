/**
 * What can go wrong opening or reading a hosted checkout session, as domain errors
 * (platform/http/Errors.ts): each carries its wire code and status; the endpoints declare them with
 * `errorWire`, the buy page turns them into its HTML pages.
 */
import { clipEcho, DomainError } from "../platform/http/Errors.js"

/** The Partner API's one answer for an unlisted name: 404 `not_found`, the finer reason in `details`. */
export class DomainNotForSale extends DomainError<DomainNotForSale>()("DomainNotForSale", {
  code: "not_found",
  status: 404,
  description:
    "The domain is not listed for sale (never listed, withdrawn or sold); details: {reason: \"domain_not_listed\"}"
}) {
  static of(domain: string) {
    return new DomainNotForSale({
      message: `${domain} is not listed for sale`,
      details: { reason: "domain_not_listed" }
    })
  }
}

export class DomainNotPriced extends DomainError<DomainNotPriced>()("DomainNotPriced", {
  code: "not_priced",
  status: 409,
  description: "The listing has no buy-now price, so it cannot be bought at checkout"
}) {
  static of(domain: string) {
    return new DomainNotPriced({ message: `${domain} has no buy-now price and cannot be bought at checkout` })
  }
}

export class ListingUnavailable extends DomainError<ListingUnavailable>()("ListingUnavailable", {
  code: "not_available",
  status: 409,
  description: "An order on the domain is in progress, or the listing is locked"
}) {}

export class CheckoutSessionNotFound extends DomainError<CheckoutSessionNotFound>()("CheckoutSessionNotFound", {
  code: "not_found",
  status: 404,
  description: "No such checkout session (or another partner's, or not a partner session)"
}) {
  static of(id: string) {
    return new CheckoutSessionNotFound({ message: `Checkout session ${clipEcho(id)} not found` })
  }
}

/** A return or cancel URL the service will not send the buyer to (`details: [{path: [field], message}]`). */
export class InvalidRedirectUrl extends DomainError<InvalidRedirectUrl>()("InvalidRedirectUrl", {
  code: "validation_error",
  status: 400,
  description: "return_url or cancel_url is not an acceptable http(s) URL (https in production)"
}) {
  static of(field: string, message: string) {
    return new InvalidRedirectUrl({ message: `${field}: ${message}`, details: [{ path: [field], message }] })
  }
}
