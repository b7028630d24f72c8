/**
 * What can go wrong reading the partner money endpoints, as domain errors (platform/Errors.ts):
 * each carries its wire code and status; the endpoints declare them with `errorWire`.
 */
import { DomainError } from "../../platform/Errors.js"

export class SettlementNotFound extends DomainError<SettlementNotFound>()("SettlementNotFound", {
  code: "not_found",
  status: 404,
  description: "No such settlement statement (or another partner's)"
}) {
  static of(id: string) {
    return new SettlementNotFound({ message: `Settlement ${id} not found` })
  }
}

/** The operator asked for the balances of a partner id that no partner has. */
export class PartnerNotFound extends DomainError<PartnerNotFound>()("PartnerNotFound", {
  code: "not_found",
  status: 404,
  description: "No partner has this id"
}) {
  static of(id: string) {
    return new PartnerNotFound({ message: `Partner ${id} not found` })
  }
}

/** A money cursor that this endpoint did not issue to this caller, or issued for other filters. */
export class InvalidCursor extends DomainError<InvalidCursor>()("InvalidCursor", {
  code: "invalid_cursor",
  status: 400,
  description: "The cursor was not issued by this endpoint to this credential, or for other filters"
}) {}

/** The affiliate payouts were asked for with a credential of a partner that is not an affiliate. */
export class NotAnAffiliate extends DomainError<NotAnAffiliate>()("NotAnAffiliate", {
  code: "forbidden",
  status: 403,
  description: "The credential is not linked to an affiliate account"
}) {
  static of() {
    return new NotAnAffiliate({ message: "This credential is not linked to an affiliate account" })
  }
}
