/**
 * What can go wrong with referral links and reports, as domain errors (platform/http/Errors.ts): each
 * carries its wire code and status; the endpoints declare them with `errorWire`. `NotAnAffiliate`
 * and `MalformedDomain` are partner-wide (partner/Errors.ts); a bad cursor is the one
 * `InvalidCursor` (platform/http/PageCursor.ts).
 */
import { clipEcho, DomainError } from "../platform/http/Errors.js"

/** A link's fields do not fit its kind (`details: [{path, message}]`). */
export class InvalidLinkRequest extends DomainError<InvalidLinkRequest>()("InvalidLinkRequest", {
  code: "validation_error",
  status: 400,
  description: "domain is required for (and only for) kind domain, product for kind product"
}) {
  static of(field: string, message: string) {
    return new InvalidLinkRequest({ message: `${field}: ${message}`, details: [{ path: [field], message }] })
  }
}

/** A report's window is not acceptable (`details: [{path: [field], message}]`). */
export class InvalidReportQuery extends DomainError<InvalidReportQuery>()("InvalidReportQuery", {
  code: "validation_error",
  status: 400,
  description: "from/to are not dates of a window of at most 366 days"
}) {}

export class ReferralLinkNotFound extends DomainError<ReferralLinkNotFound>()("ReferralLinkNotFound", {
  code: "not_found",
  status: 404,
  description: "No such link of the credential's partner and environment"
}) {
  static of(id: string) {
    return new ReferralLinkNotFound({ message: `Link ${clipEcho(id)} not found` })
  }
}
