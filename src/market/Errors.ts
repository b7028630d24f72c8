/**
 * What can go wrong browsing the marketplace, as domain errors (platform/Errors.ts): each carries
 * its wire code and status; the endpoints declare them with `errorWire`.
 */
import type { CursorProblem } from "../domain/Cursor.js"
import { DomainError } from "../platform/Errors.js"

/**
 * A cursor this endpoint did not issue (to this caller), or issued for other filters or another
 * sort. The market's carry `details: {field, problem}`; the partner money pages use it too.
 */
export class InvalidCursor extends DomainError<InvalidCursor>()("InvalidCursor", {
  code: "invalid_cursor",
  status: 400,
  description:
    "The cursor is malformed, was not issued by this endpoint (to this caller), or was issued for other filters or another sort"
}) {
  static of(problem: CursorProblem, message: string) {
    return new InvalidCursor({ message, details: { field: "cursor", problem } })
  }
}

/** The domain has no listing that shows as for sale (none, sold or withdrawn). */
export class ListingNotFound extends DomainError<ListingNotFound>()("ListingNotFound", {
  code: "listing_not_found",
  status: 404,
  description: "The domain is not listed for sale"
}) {
  static of(domain: string) {
    return new ListingNotFound({ message: `${domain} is not listed for sale` })
  }
}
