/**
 * The one "parse the domain or answer 400" (platform/http/DomainInput.ts): `InvalidDomain` carries code
 * `invalid_domain`, `details: {field, problem}`, and each surface's published wording; its legacy
 * wire is `{"error": message}`. A surface with its own wire builds its answer from the problem.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { parseDomainName } from "../../../src/domain/DomainName.js"
import {
  domainInput,
  InvalidDomain,
  LegacyInvalidDomain,
  parseDomainInput,
  parseDomainInputWith
} from "../../../src/platform/http/DomainInput.js"
import { CurrentRequestId, errorWire, legacyErrorWire } from "../../../src/platform/http/Errors.js"

const invalid = (input: string, wording?: Parameters<typeof parseDomainInput>[2]) => {
  const parsed = parseDomainInput("domain", input, wording)
  if (Either.isRight(parsed)) throw new Error(`${input} parsed`)
  return parsed.left
}

describe("parseDomainInput", () => {
  it("parses a name to its A-label form", () => {
    expect(Either.getOrThrow(parseDomainInput("domain", "Bücher.DE")).ascii).toBe("xn--bcher-kva.de")
  })

  it("words the error as each surface published it", () => {
    const reason = "only letters, digits and hyphens are allowed in a label"
    expect(invalid("not a domain").message).toBe(`"not a domain" is not a valid domain name: ${reason}`)
    expect(invalid("not a domain", "field-input").message).toBe(
      `domain: "not a domain" is not a valid domain name: ${reason}`
    )
    expect(invalid("not a domain", "field").message).toBe(`domain is not a valid domain name: ${reason}`)
    expect(invalid("not a domain").details).toEqual({ field: "domain", problem: "invalid_character" })
    const long = `${"a b".repeat(200)}.com`
    expect(invalid(long).message.startsWith(`"${long.slice(0, 300)}" is not`)).toBe(true)
    expect(invalid(long, "whole-input").message.startsWith(`"${long}" is not`)).toBe(true)
  })

  it("leaves a surface with its own wire its own answer, built from the parse's problem", () => {
    const own = (input: string) => parseDomainInputWith(input, (e) => `${e.problem}: ${e.message}`)
    expect(Either.getOrThrow(own("Bücher.DE")).ascii).toBe("xn--bcher-kva.de")
    expect(own("x")).toEqual(Either.left("single_label: a domain name needs a label and a TLD, e.g. example.com"))
    // The shared error is the same parse, worded.
    expect(invalid("x", "field").message).toBe(
      `domain is not a valid domain name: ${Either.getOrThrow(Either.flip(parseDomainName("x"))).message}`
    )
  })

  it.effect("encodes to the typed envelope, or the legacy one", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(domainInput("q", "x", "field"))
      expect(e).toBeInstanceOf(InvalidDomain)
      const typed = yield* Schema.encode(errorWire(InvalidDomain))(e).pipe(Effect.locally(CurrentRequestId, "req_1"))
      expect(typed).toEqual({
        error: {
          code: "invalid_domain",
          message: e.message,
          request_id: "req_1",
          details: { field: "q", problem: "single_label" }
        }
      })
      // The legacy surfaces raise their own class (an API encodes each class one way), same message.
      const legacy = LegacyInvalidDomain.of("q", parseDomainName("x").pipe(Either.flip, Either.getOrThrow), "field")
      expect(legacy.message).toBe(e.message)
      expect(yield* Schema.encode(legacyErrorWire(LegacyInvalidDomain))(legacy)).toEqual({ error: e.message })
    }))
})
