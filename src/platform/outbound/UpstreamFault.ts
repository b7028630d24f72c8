/**
 * Describing an upstream failure for a caller without quoting the request that failed.
 *
 * `@effect/platform`'s HttpClientError messages end in `(GET <url>)`; the URL of an RDAP or
 * registrar call carries the domain someone asked about. Such a message may be remembered (a
 * server skipped after a failure, an open circuit) and shown to the next caller, who would then
 * read another caller's domain. So a failure is described by its kind, its status and a system
 * error code only — never the URL, a path or a response body.
 */
import type { HttpClientError } from "@effect/platform"

/** A Node system error code (`ECONNREFUSED`, `UND_ERR_SOCKET`, …) somewhere in a cause chain. */
export const systemCodeOf = (cause: unknown): string | undefined => {
  let current = cause
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** `transport error (ECONNREFUSED)`, `HTTP 502`, `undecodable response (HTTP 200)` — no URL. */
export const describeHttpFailure = (e: HttpClientError.HttpClientError): string => {
  if (e._tag === "RequestError") {
    const code = systemCodeOf(e.cause)
    const kind = e.reason === "Transport"
      ? "transport error"
      : e.reason === "Encode"
      ? "request encoding error"
      : "invalid URL"
    return code === undefined ? kind : `${kind} (${code})`
  }
  const status = e.response.status
  return e.reason === "StatusCode"
    ? `HTTP ${status}`
    : e.reason === "EmptyBody"
    ? `empty response (HTTP ${status})`
    : `undecodable response (HTTP ${status})`
}
