/**
 * What a caller is told when request input fails its schema: a one-line summary and the
 * per-field details, with their quoted input clipped.
 */
import type { HttpApiError } from "@effect/platform"
import { clipEcho } from "./Errors.js"

/** A schema issue message with the quoted input (`actual …`) cut to `MAX_ECHO` characters. */
export const clipIssueMessage = (message: string): string => {
  const match = /^(Expected .+?, actual )(.+)$/s.exec(message)
  if (match) return `${clipEcho(match[1], 300)}${clipEcho(match[2])}`
  return clipEcho(message, 300)
}

/**
 * The issues of a decode failure worth showing a caller: an optional field's schema is
 * `T | undefined`, so a bad value fails both members, and "Expected undefined, actual …" beside
 * the real complaint about the same field only confuses. Dropped where the path has another issue.
 */
export const meaningfulIssues = <I extends { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>(
  issues: ReadonlyArray<I>
): Array<I> => {
  const key = (i: I) => i.path.map(String).join("\u0000")
  const undefinedOnly = (i: I) => /^Expected undefined, actual /.test(i.message)
  const covered = new Set(issues.filter((i) => !undefinedOnly(i)).map(key))
  return issues.filter((i) => !(undefinedOnly(i) && covered.has(key(i))))
}

/**
 * Human summary of a schema decode failure, one clause per field:
 * `op: expected one of "register" | "renew" | "transfer" | "restore", got "foo"; tld: is missing`.
 * Quoted input is cut to `MAX_ECHO` characters, so the error never repeats a large request.
 */
export const describeDecodeError = (e: HttpApiError.HttpApiDecodeError) => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of e.issues.slice(0, 20)) {
    const key = clipEcho(issue.path.join("."))
    byPath.set(key, [...(byPath.get(key) ?? []), clipIssueMessage(issue.message)])
  }
  const clauses: Array<string> = []
  for (const [path, messages] of byPath) {
    const expected: Array<string> = []
    let actual: string | undefined
    const other: Array<string> = []
    for (const m of messages) {
      const match = /^Expected (.+), actual (.+)$/s.exec(m)
      if (match) {
        if (match[1] !== "undefined") expected.push(match[1])
        actual = match[2]
      } else {
        other.push(m)
      }
    }
    const parts = [...new Set(other)]
    if (expected.length === 1) parts.push(`expected ${expected[0]}, got ${actual}`)
    if (expected.length > 1) parts.push(`expected one of ${expected.join(" | ")}, got ${actual}`)
    clauses.push(path ? `${path}: ${parts.join(", ")}` : parts.join(", "))
  }
  return clauses.length > 0 ? clauses.join("; ") : e.message
}

/**
 * The message and per-field details of the 400 `validation_error` a decode failure answers
 * (ApiErrors.ts; batch operations decoding their params with an endpoint's schema).
 */
export const validationFailure = (e: HttpApiError.HttpApiDecodeError) => ({
  message: describeDecodeError(e),
  details: meaningfulIssues(e.issues).slice(0, 20).map((i) => ({
    path: i.path.map((p) => (typeof p === "string" ? clipEcho(p) : p)),
    message: clipIssueMessage(i.message)
  }))
})
