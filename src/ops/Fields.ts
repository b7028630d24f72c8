/**
 * The operator console's form fields, read the one way every handler reads them: a form field is
 * an optional string; a missing or wrong one is a `badInput` refusal (a 400 page with the reason),
 * never the JSON 400 of a schema, so a person always sees a page.
 */
import { Effect } from "effect"
import { badInput } from "./Door.js"

/** A whole number of cents from a form field: absent is undefined, anything else but 1…max refused. */
export const centsOf = (name: string, value: string | undefined, max = 1e12) => {
  const text = (value ?? "").trim()
  if (text === "") return Effect.succeed(undefined)
  const n = Number(text)
  return /^\d+$/.test(text) && n >= 1 && n <= max
    ? Effect.succeed(n)
    : Effect.fail(badInput(`${name}: a whole number of cents from 1 to ${max}`))
}

/** Basis points 0…10000 (1000 = 10 %); absent is `fallback`. */
export const bpsOf = (name: string, value: string | undefined, fallback?: number) => {
  const text = (value ?? "").trim()
  if (text === "" && fallback !== undefined) return Effect.succeed(fallback)
  const n = Number(text)
  return /^\d+$/.test(text) && n <= 10_000
    ? Effect.succeed(n)
    : Effect.fail(badInput(`${name}: a whole number from 0 to 10000`))
}

export const required = <A>(name: string, value: A | undefined) =>
  value === undefined ? Effect.fail(badInput(`${name} is required`)) : Effect.succeed(value)

/** A non-empty, trimmed text field. */
export const idOf = (name: string, value: string | undefined) => required(name, value?.trim() || undefined)

export const noteOf = (value: string | undefined) => {
  const note = (value ?? "").trim()
  return note === "" ? undefined : note.slice(0, 500)
}

export const isOneOf = <T extends string>(list: ReadonlyArray<T>, v: string | undefined): v is T =>
  v !== undefined && (list as ReadonlyArray<string>).includes(v)
