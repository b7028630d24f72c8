/**
 * What can go wrong browsing the marketplace, as domain errors (platform/http/Errors.ts): each carries
 * its wire code and status; the endpoints declare them with `errorWire`.
 */
import { Effect, Either } from "effect"
import { parseTld } from "../domain/DomainName.js"
import { DomainError } from "../platform/http/Errors.js"

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

/**
 * Another seller's valid quote holds the listing (src/domain/Reservation.ts): every channel that
 * would sell it is refused, before any charge, with `details: {held_until}`.
 */
export class ListingHeld extends DomainError<ListingHeld>()("ListingHeld", {
  code: "conflict",
  status: 409,
  description: "Another partner's valid quote reserves the domain; details.held_until says until when"
}) {
  static until(domain: string, heldUntil: Date) {
    return new ListingHeld({
      message: `${domain} is reserved by another partner's quote until ${heldUntil.toISOString()}`,
      details: { held_until: heldUntil.toISOString() }
    })
  }
  /** The end of the hold (RFC 3339), as in `details.held_until`. */
  get heldUntil(): string {
    return (this.details as { readonly held_until: string }).held_until
  }
}

/** The `tld` filter is not a TLD (`details: {field: "tld"}`). */
export class InvalidTldFilter extends DomainError<InvalidTldFilter>()("InvalidTldFilter", {
  code: "invalid_tld",
  status: 400,
  description: "The tld filter is not a valid TLD"
}) {
  static of(message: string) {
    return new InvalidTldFilter({ message, details: { field: "tld" } })
  }
}

/** `.COM`, `com.`, `.co.uk` → `com`, `co.uk`; an IDN TLD → its A-label; else `InvalidTldFilter`. */
export const tldFilter = (input: string): Effect.Effect<string, InvalidTldFilter> => {
  const t = input.trim().toLowerCase().replace(/^\.+/, "").replace(/\.+$/, "")
  if (t === "") return Effect.fail(InvalidTldFilter.of("tld must not be empty"))
  const parsed = parseTld(t)
  return Either.isLeft(parsed)
    ? Effect.fail(InvalidTldFilter.of(`"${input}" is not a valid TLD: ${parsed.left.message}`))
    : Effect.succeed(parsed.right)
}
