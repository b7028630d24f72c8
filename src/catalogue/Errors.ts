/**
 * What can go wrong reading the catalogue, as domain errors (platform/http/Errors.ts): each carries
 * its wire code and status; the endpoints declare them with `errorWire`.
 */
import { DomainError } from "../platform/http/Errors.js"

/** The path's TLD is not a syntactically valid TLD. */
export class InvalidTld extends DomainError<InvalidTld>()("InvalidTld", {
  code: "invalid_tld",
  status: 400,
  description: "The TLD is not a valid TLD"
}) {
  static of(input: string) {
    return new InvalidTld({ message: `"${input}" is not a valid TLD` })
  }
}

/** A valid TLD the catalogue holds no registry metadata for. */
export class TldNotFound extends DomainError<TldNotFound>()("TldNotFound", {
  code: "tld_not_found",
  status: 404,
  description: "The catalogue has no registry metadata for the TLD"
}) {
  static of(tld: string) {
    return new TldNotFound({ message: `No registry metadata for .${tld}` })
  }
}

/**
 * GET /api/pricing/tld's `tld` is empty or not a syntactically valid TLD. That endpoint answers in
 * the legacy shape (`legacyErrorWire`): only the message shows, worded as it was first published.
 */
export class InvalidPriceTld extends DomainError<InvalidPriceTld>()("InvalidPriceTld", {
  code: "validation_error",
  status: 400,
  description: "tld is missing or not a valid TLD"
}) {
  static missing() {
    return new InvalidPriceTld({ message: "tld is required" })
  }
  static of(input: string) {
    return new InvalidPriceTld({ message: `tld "${input}" is not a valid TLD` })
  }
}
