/**
 * What can go wrong reading the partner money endpoints, as domain errors (platform/http/Errors.ts):
 * each carries its wire code and status; the endpoints declare them with `errorWire`. A bad cursor
 * is the one `InvalidCursor` (platform/http/PageCursor.ts) and a partner that is not an affiliate is
 * `NotAnAffiliate` (partner/Errors.ts): one tag, one class in the whole Api.
 */
import { clipEcho, DomainError } from "../../platform/http/Errors.js"

export class SettlementNotFound extends DomainError<SettlementNotFound>()("SettlementNotFound", {
  code: "not_found",
  status: 404,
  description: "No such settlement statement (or another partner's)"
}) {
  static of(id: string) {
    return new SettlementNotFound({ message: `Settlement ${clipEcho(id)} not found` })
  }
}

/** The operator asked for the balances of a partner id that no partner has. */
export class PartnerNotFound extends DomainError<PartnerNotFound>()("PartnerNotFound", {
  code: "not_found",
  status: 404,
  description: "No partner has this id"
}) {
  static of(id: string) {
    return new PartnerNotFound({ message: `Partner ${clipEcho(id)} not found` })
  }
}

/** A receipt for more than the partner's statements say it owes. */
export class ReceiptExceedsOwed extends DomainError<ReceiptExceedsOwed>()("ReceiptExceedsOwed", {
  code: "conflict",
  status: 409,
  description: "The receipt is larger than what the partner's statements say it owes"
}) {}

/** The reference was used already for a receipt of another amount. */
export class ReceiptReferenceUsed extends DomainError<ReceiptReferenceUsed>()("ReceiptReferenceUsed", {
  code: "conflict",
  status: 409,
  description: "This reference names an earlier receipt of another amount"
}) {}
