/**
 * Partner-wide domain errors (platform/http/Errors.ts): what can go wrong with the credential's
 * partner account itself, whichever capability asks. One tag, one class in the whole Api: the
 * ledger's payouts and the referral links both answer `NotAnAffiliate` with this class.
 */
import { DomainError } from "../platform/http/Errors.js"

/** The credential's partner is not an affiliate account. */
export class NotAnAffiliate extends DomainError<NotAnAffiliate>()("NotAnAffiliate", {
  code: "forbidden",
  status: 403,
  description:
    "The credential's partner is not an affiliate account (the operator creates one with `partner create --affiliate`)"
}) {}

/**
 * A query parameter, header or body field the schema cannot express is malformed (an
 * Idempotency-Key, an event id, a search text); the message names the field.
 */
export class MalformedParameter extends DomainError<MalformedParameter>()("MalformedParameter", {
  code: "validation_error",
  status: 400,
  description: "A parameter is malformed; the message names it"
}) {
  static of(message: string, details?: unknown) {
    return new MalformedParameter(details === undefined ? { message } : { message, details })
  }
}

/** A field that must be a domain name is not one (`details: [{path: [field], message}]`). */
export class MalformedDomain extends DomainError<MalformedDomain>()("MalformedDomain", {
  code: "validation_error",
  status: 400,
  description: "The field is not a domain name (A-label or Unicode form)"
}) {
  static of(field: string, message: string) {
    return new MalformedDomain({ message: `${field}: ${message}`, details: [{ path: [field], message }] })
  }
}

/** A list's `from`/`to` is not an RFC 3339 date-time or YYYY-MM-DD, or `from` is after `to`. */
export class InvalidDateWindow extends DomainError<InvalidDateWindow>()("InvalidDateWindow", {
  code: "validation_error",
  status: 400,
  description: "from/to must be RFC 3339 date-times or YYYY-MM-DD, from not after to"
}) {}
