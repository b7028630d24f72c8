/** Small helpers shared by the partner handlers. */
import { Effect, Either } from "effect"
import { parseDomainName } from "../domain/DomainName.js"
import { BadRequestError } from "../platform/Errors.js"

export const validationError = (message: string, details?: unknown) =>
  new BadRequestError(details === undefined ? { code: "validation_error", message } : { code: "validation_error", message, details })

/** A domain from user input in A-label form, or a 400 `validation_error` naming the field. */
export const domainParam = (field: string, input: string) =>
  Either.match(parseDomainName(input.trim()), {
    onLeft: (e) => Effect.fail(validationError(`${field}: ${e.message}`, [{ path: [field], message: e.message }])),
    onRight: (d) => Effect.succeed(d)
  })

/** RFC 3339 UTC with milliseconds. */
export const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString())
