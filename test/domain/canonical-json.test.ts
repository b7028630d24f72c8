/** Property tests: the canonical JSON of an Idempotency-Key body ignores formatting, never values. */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { canonicalJson } from "../../src/domain/CanonicalJson.js"

/** The same value written another way: keys shuffled, whitespace added. */
const reformat = (value: unknown, seed: number): string => {
  const shuffle = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(shuffle)
    if (v === null || typeof v !== "object") return v
    const keys = Object.keys(v)
    const order = keys.map((k, i) => [k, (i * 7919 + seed) % (keys.length + 1)] as const).sort((a, b) => a[1] - b[1])
    return Object.fromEntries(order.map(([k]) => [k, shuffle((v as Record<string, unknown>)[k])]))
  }
  return JSON.stringify(shuffle(value), null, seed % 4)
}

describe("canonicalJson", () => {
  it("a body reformatted (key order, whitespace) has the same canonical form", () =>
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
        expect(canonicalJson(reformat(value, seed))).toBe(canonicalJson(JSON.stringify(value)))
      })
    ))

  it("bodies with different values have different canonical forms", () =>
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b))
        // Values equal as JSON (e.g. -0 and 0) are the same body.
        fc.pre(JSON.stringify(JSON.parse(JSON.stringify(a))) !== JSON.stringify(JSON.parse(JSON.stringify(b))))
        expect(canonicalJson(JSON.stringify(a)) === canonicalJson(JSON.stringify(b))).toBe(
          JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))
        )
      })
    ))

  it("number spellings of one value are one body; strings are compared exactly; non-JSON stays as it is", () => {
    expect(canonicalJson(`{"expected_price": 1.0e3, "a": [1, 2]}`)).toBe(`{"a":[1,2],"expected_price":1000}`)
    expect(canonicalJson(`{"a":"x "}`)).not.toBe(canonicalJson(`{"a":"x"}`))
    expect(canonicalJson(`{"a":[2,1]}`)).not.toBe(canonicalJson(`{"a":[1,2]}`))
    expect(canonicalJson("not json {")).toBe("not json {")
  })
})

const sortKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v === null || typeof v !== "object"
    ? v
    : Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]))
