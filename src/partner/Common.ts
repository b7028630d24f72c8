/**
 * Small helpers shared by the partner handlers and services. They fail with the partner-wide
 * domain errors (./Errors.ts), never an HTTP error, so a service may use them.
 */
import { Effect, Schema } from "effect"
import type { DomainName } from "../domain/DomainName.js"
import { parseDomainInputWith } from "../platform/http/DomainInput.js"
import { InvalidDateWindow, MalformedDomain } from "./Errors.js"

/**
 * A `from`/`to` query window of a partner list: each an RFC 3339 date-time or YYYY-MM-DD, `from`
 * not after `to`; otherwise `InvalidDateWindow` naming the field. One rule for every list.
 */
export const dateWindow = (from: string | undefined, to: string | undefined) =>
  Effect.gen(function*() {
    const f = yield* dateParam("from", from)
    const t = yield* dateParam("to", to)
    if (f && t && f.getTime() > t.getTime()) {
      return yield* new InvalidDateWindow({ message: "from: must not be after to" })
    }
    return { from: f, to: t }
  })

/**
 * A date query parameter on the wire (`from`, `to`, `as_of`): a string that `dateWindow` /
 * `dateParam` read, so a bad one is `InvalidDateWindow` naming the field (not a decode error).
 */
export const IsoDate = Schema.String.annotations({ description: "RFC 3339 date-time or YYYY-MM-DD" })

/** One date query parameter (RFC 3339 date-time or YYYY-MM-DD), or `InvalidDateWindow` naming the field. */
export const dateParam = (field: string, s: string | undefined) => {
  if (s === undefined) return Effect.succeed(undefined)
  const ok = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/.test(s)
  const d = new Date(s)
  return ok && !Number.isNaN(d.getTime())
    ? Effect.succeed(d)
    : Effect.fail(new InvalidDateWindow({ message: `${field}: must be an RFC 3339 date-time or YYYY-MM-DD` }))
}

/** A domain from user input in A-label form, or `MalformedDomain` naming the field. */
export const domainParam = (field: string, input: string): Effect.Effect<DomainName, MalformedDomain> =>
  parseDomainInputWith(input.trim(), (e) => MalformedDomain.of(field, e.message))

/** RFC 3339 UTC with milliseconds. */
export const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString())

/** A page size in a query string: 1–100 (the handlers default to 25). */
export const PageLimit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100)).annotations({
  description: "1–100, default 25"
})

/** The cursor-paging query parameters of list endpoints (spread into their url params struct); the
 * cursors themselves are platform/http/PageCursor.ts. */
export const Paging = { limit: Schema.optional(PageLimit), cursor: Schema.optional(Schema.String) }
