/**
 * "The database cannot be reached" as opposed to "the query is wrong": one classification, used
 * where errors become responses (`ApiErrorsLive`), so every endpoint answers an outage the same
 * way — 503 `unavailable` with `Retry-After` — instead of a 500 or a hang.
 *
 * An outage is a `SqlError` (or anything in its `cause` chain) that says the connection could not
 * be opened, acquired or kept: refused/reset sockets, connect/acquire/statement timeouts,
 * terminated connections, the server shutting down or out of connection slots.
 */
import { Cause, Option } from "effect"

/** Seconds a client is asked to wait before retrying during an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN"
])

/**
 * SQLSTATEs of an unreachable or overloaded server: class 08 (connection exception),
 * 57P01–57P03 (shutting down, cannot connect now), 53300 (too many connections), 57014
 * (statement timeout / cancelled).
 */
const isOutageSqlState = (code: string) =>
  code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300" ||
  code === "57014"

const OUTAGE_MESSAGE =
  /timeout|timed out|terminated|connection (error|ended|closed|refused)|not queryable|too many connections|client was closed|cannot use a pool after calling end|failed to acquire connection/i

const looksLikeOutage = (error: unknown, depth = 0): boolean => {
  if (error === null || typeof error !== "object" || depth > 6) return false
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; _tag?: unknown }
  if (typeof e.code === "string" && (NETWORK_CODES.has(e.code) || isOutageSqlState(e.code))) return true
  if (typeof e.message === "string" && OUTAGE_MESSAGE.test(e.message)) return true
  if (Array.isArray((error as { errors?: unknown }).errors)) {
    // AggregateError (e.g. connecting to both ::1 and 127.0.0.1 refused).
    if ((error as { errors: Array<unknown> }).errors.some((x) => looksLikeOutage(x, depth + 1))) return true
  }
  return looksLikeOutage(e.cause, depth + 1)
}

/** Whether `error` (a `SqlError`, or an error wrapping one) means the database is unreachable. */
export const isDatabaseOutage = (error: unknown): boolean => {
  if (error === null || typeof error !== "object") return false
  // Only SQL errors (or errors caused by one): a timed-out upstream HTTP call is not a database outage.
  let current: unknown = error
  for (let i = 0; i < 6 && current !== null && typeof current === "object"; i++) {
    if ((current as { _tag?: unknown })._tag === "SqlError") return looksLikeOutage(current)
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/** Whether a cause (failure or defect) carries a database outage. */
export const causeIsDatabaseOutage = (cause: Cause.Cause<unknown>): boolean =>
  Option.isSome(Cause.find(cause, (reason) => {
    if (reason._tag === "Fail" && isDatabaseOutage(reason.error)) return Option.some(true)
    if (reason._tag === "Die" && isDatabaseOutage(reason.defect)) return Option.some(true)
    return Option.none()
  }))
