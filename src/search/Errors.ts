/**
 * What can go wrong starting a search, as domain errors (platform/Errors.ts): each carries its
 * wire code and status; the search endpoint declares them with `errorWire`, batch encodes them
 * into an operation's result.
 */
import type { InvalidDomainName } from "../domain/DomainName.js"
import { DomainError } from "../platform/Errors.js"

/** `q` is not a domain name (`details: {field: "q", problem}`). */
export class InvalidSearchQuery extends DomainError<InvalidSearchQuery>()("InvalidSearchQuery", {
  code: "invalid_domain",
  status: 400,
  description: "q is not a valid domain name"
}) {
  static of(e: InvalidDomainName) {
    return new InvalidSearchQuery({
      message: `q is not a valid domain name: ${e.message}`,
      details: { field: "q", problem: e.problem }
    })
  }
}
