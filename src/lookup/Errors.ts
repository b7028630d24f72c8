/**
 * What can go wrong with a WHOIS lookup, as domain errors (platform/http/Errors.ts): each carries its
 * wire code and status; POST /api/tools/whois declares them with `errorWire`, batch encodes them
 * into an operation's result, the MCP tool reports their code and message.
 */
import { DomainError } from "../platform/http/Errors.js"
import type { RateLimitDecision } from "../platform/http/RateLimit.js"

/** The caller's daily WHOIS quota is spent. */
export class WhoisQuotaSpent extends DomainError<WhoisQuotaSpent>()("WhoisQuotaSpent", {
  code: "rate_limited",
  status: 429,
  description: "The daily WHOIS quota is spent; see Retry-After"
}) {
  static of(d: RateLimitDecision) {
    return new WhoisQuotaSpent({
      message: `Daily WHOIS quota of ${d.limit} lookups spent; retry in ${d.resetSeconds}s`,
      details: { limit: d.limit, window_seconds: d.windowSeconds, retry_after: d.resetSeconds }
    })
  }
}

/** No source has the name: a source said "no such domain" and none found it. */
export class WhoisNotFound extends DomainError<WhoisNotFound>()("WhoisNotFound", {
  code: "whois_not_found",
  status: 404,
  description: "No registration data: the registry has no such domain"
}) {
  static of(domain: string) {
    return new WhoisNotFound({ message: `No registration data for ${domain}: the registry has no such domain` })
  }
}

/** Every source failed. */
export class WhoisUnavailable extends DomainError<WhoisUnavailable>()("WhoisUnavailable", {
  code: "whois_unavailable",
  status: 404,
  description: "The RDAP and WHOIS sources failed; retry later"
}) {
  static of(domain: string, rdap: string, whois: string) {
    return new WhoisUnavailable({
      message: `WHOIS data for ${domain} is unavailable right now (RDAP ${rdap}; WHOIS ${whois})`
    })
  }
}
