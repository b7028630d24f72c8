/** What can go wrong reading the partner inventory, as domain errors (platform/http/Errors.ts). */
import { DomainError } from "../../platform/http/Errors.js"

/**
 * The domain is not in the credential's inventory (or, for pricing, no longer offered): 404
 * `not_found` like every unlisted name on the Partner API, the finer reason in `details`.
 */
export class DomainNotListed extends DomainError<DomainNotListed>()("DomainNotListed", {
  code: "not_found",
  status: 404,
  description: "The domain is not listed in the credential's inventory; details: {reason: \"domain_not_listed\"}"
}) {
  static of(domain: string) {
    return new DomainNotListed({ message: `${domain} is not listed`, details: { reason: "domain_not_listed" } })
  }
}
