/**
 * What can go wrong reading the catalogue, as domain errors (platform/Errors.ts): each carries
 * its wire code and status; the endpoints declare them with `errorWire`.
 */
import { DomainError } from "../platform/Errors.js"

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
