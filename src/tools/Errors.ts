/**
 * What can go wrong with a free tool's input, as domain errors (platform/Errors.ts): each carries
 * its wire code and status; the endpoints declare them with `errorWire`.
 */
import type { InvalidDomainName } from "../domain/DomainName.js"
import { DomainError } from "../platform/Errors.js"

/** A tool's domain field is not a domain name (`details: {field, problem}`). */
export class NotADomainName extends DomainError<NotADomainName>()("NotADomainName", {
  code: "invalid_domain",
  status: 400,
  description: "The domain field is not a valid domain name"
}) {
  static of(field: string, input: string, e: InvalidDomainName) {
    return new NotADomainName({
      message: `${field}: "${input.slice(0, 300)}" is not a valid domain name: ${e.message}`,
      details: { field, problem: e.problem }
    })
  }
}

/** The keywords hold no letter or digit to build a name from. */
export class UnusableKeywords extends DomainError<UnusableKeywords>()("UnusableKeywords", {
  code: "invalid_keywords",
  status: 400,
  description: "The keywords hold no letters or digits to build names from"
}) {}

/** The site-check url is not an http or https URL. */
export class InvalidSiteUrl extends DomainError<InvalidSiteUrl>()("InvalidSiteUrl", {
  code: "invalid_url",
  status: 400,
  description: "url is not an http or https URL"
}) {}
