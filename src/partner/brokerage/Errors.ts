/**
 * What can go wrong with a brokerage case, as domain errors (platform/http/Errors.ts): each carries
 * its wire code and status; the endpoints declare them with `errorWire`.
 */
import { clipEcho, DomainError } from "../../platform/http/Errors.js"

/** The requested domain is not a registrable name (`details: [{path: ["domain"], message}]`). */
export class InvalidBrokerageDomain extends DomainError<InvalidBrokerageDomain>()("InvalidBrokerageDomain", {
  code: "validation_error",
  status: 400,
  description: "The domain is not a registrable name under a known top-level domain"
}) {
  static of(message: string) {
    return new InvalidBrokerageDomain({ message: `domain: ${message}`, details: [{ path: ["domain"], message }] })
  }
}

/** The domain cannot be brokered now (`details: {reasons, details}`, as the eligibility check). */
export class DomainNotEligible extends DomainError<DomainNotEligible>()("DomainNotEligible", {
  code: "conflict",
  status: 409,
  description: "The domain is not eligible for brokerage (reserved, already in an open case, a live site)"
}) {}

export class BrokerageCaseNotFound extends DomainError<BrokerageCaseNotFound>()("BrokerageCaseNotFound", {
  code: "not_found",
  status: 404,
  description: "No such brokerage case (or another partner's)"
}) {
  static of(id: string) {
    return new BrokerageCaseNotFound({ message: `Brokerage case ${clipEcho(id)} not found` })
  }
}

/** The move is malformed for the case (e.g. closing won without a deal price). */
export class InvalidCaseMove extends DomainError<InvalidCaseMove>()("InvalidCaseMove", {
  code: "validation_error",
  status: 400,
  description: "The move needs input it was not given (e.g. a deal price)"
}) {}

/** The move is not allowed from the case's current status (closed, or no next step). */
export class CaseMoveNotAllowed extends DomainError<CaseMoveNotAllowed>()("CaseMoveNotAllowed", {
  code: "conflict",
  status: 409,
  description: "The case's status does not allow this move"
}) {}
