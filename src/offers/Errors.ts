/** What can go wrong with an offer, as domain errors (platform/http/Errors.ts). */
import { DomainError } from "../platform/http/Errors.js"

export class OfferNotFound extends DomainError<OfferNotFound>()("OfferNotFound", {
  code: "offer_not_found",
  status: 404,
  description: "No offer has this id"
}) {
  static of(id: string) {
    return new OfferNotFound({ message: `No offer ${id}` })
  }
}

/** The offer was already accepted, countered or declined: it is decided once. */
export class OfferClosed extends DomainError<OfferClosed>()("OfferClosed", {
  code: "offer_closed",
  status: 409,
  description: "The offer was already accepted, countered or declined"
}) {
  static of(id: string, status: string) {
    return new OfferClosed({ message: `Offer ${id} is already ${status}`, details: { status } })
  }
}
