/**
 * A domain name given by a caller: parsed once (domain/DomainName.ts), or the one domain error
 * every surface answers for a name that is not one, `InvalidDomain` (400 `invalid_domain`,
 * `details: {field, problem}`). Services raise it; endpoints declare it with `errorWire` (or
 * `legacyErrorWire` on the legacy paths).
 *
 * Contract: the message of each surface stays as first published; `Wording` names the styles in
 * use, so a new surface picks one rather than writing its own sentence. A surface whose answer
 * predates `InvalidDomain` (partner `validation_error`, the CLIs, a bad name reported as data)
 * parses here too, with `parseDomainInputWith`, and builds its own answer from the problem.
 */
import { Effect, Either } from "effect"
import { type DomainName, type InvalidDomainName, parseDomainName } from "../../domain/DomainName.js"
import { DomainError } from "./Errors.js"

export class InvalidDomain extends DomainError<InvalidDomain>()("InvalidDomain", {
  code: "invalid_domain",
  status: 400,
  description: "Not a valid domain name (`details.problem` says which rule failed)"
}) {
  static of(field: string, e: InvalidDomainName, wording: Wording = "input") {
    return new InvalidDomain({ message: messageOf(field, e, wording), details: { field, problem: e.problem } })
  }
}

/**
 * `InvalidDomain` on the legacy surfaces (`{"error":"message"}`, `legacyErrorWire`). A separate
 * class, because an API encodes each error class one way: were `InvalidDomain` declared with both
 * wires, the first would answer on every endpoint.
 */
export class LegacyInvalidDomain extends DomainError<LegacyInvalidDomain>()("LegacyInvalidDomain", {
  code: "invalid_domain",
  status: 400,
  description: "Not a valid domain name"
}) {
  static of(field: string, e: InvalidDomainName, wording: Wording = "input") {
    return new LegacyInvalidDomain({ message: messageOf(field, e, wording) })
  }
}

/**
 * How a surface names the bad input in its message:
 * - `input`: the input quoted, cut to 300 characters (`"x y" is not…`): WHOIS, MCP whois_lookup;
 * - `whole-input`: the input quoted, uncut (a path parameter, bounded by the URL): market listing,
 *   keyed availability;
 * - `field-input`: the field, then the input quoted and cut (`domain: "x y" is not…`): the tools;
 * - `field`: the field only (`q is not…`): search.
 */
export type Wording = "input" | "whole-input" | "field-input" | "field"

const messageOf = (field: string, e: InvalidDomainName, wording: Wording) =>
  `${lead(field, e.input, wording)} is not a valid domain name: ${e.message}`

const lead = (field: string, input: string, wording: Wording) => {
  switch (wording) {
    case "input":
      return `"${input.slice(0, 300)}"`
    case "whole-input":
      return `"${input}"`
    case "field-input":
      return `${field}: "${input.slice(0, 300)}"`
    case "field":
      return field
  }
}

/** The parsed name, or what `invalid` makes of the problem: the answer of a surface with its own wire. */
export const parseDomainInputWith = <E>(
  input: string,
  invalid: (e: InvalidDomainName) => E
): Either.Either<DomainName, E> => Either.mapLeft(parseDomainName(input), invalid)

/** The parsed name, or `InvalidDomain` for `field`. */
export const parseDomainInput = (
  field: string,
  input: string,
  wording: Wording = "input"
): Either.Either<DomainName, InvalidDomain> => parseDomainInputWith(input, (e) => InvalidDomain.of(field, e, wording))

/** `parseDomainInput` as an effect. */
export const domainInput = (field: string, input: string, wording: Wording = "input"): Effect.Effect<
  DomainName,
  InvalidDomain
> => parseDomainInput(field, input, wording)
