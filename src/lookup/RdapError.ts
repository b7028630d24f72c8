/**
 * Why an RDAP lookup has no answer. Callers must treat every reason as "unknown", never as
 * "available" (Rdap.ts's header lists when each occurs).
 */
import { Data } from "effect"

export class RdapError extends Data.TaggedError("RdapError")<{
  readonly reason:
    | "unsupported_tld"
    | "unavailable"
    | "timeout"
    | "rate_limited"
    | "unreachable"
    | "upstream"
    | "decode"
    | "too_many_redirects"
  readonly message: string
  readonly url?: string
  readonly status?: number
  /** Seconds, from Retry-After on a 429. */
  readonly retryAfter?: number
}> {}
