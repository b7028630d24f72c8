/** Property tests: listing cursors are bound to their filters and sort, and cannot be forged. */
import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import fc from "fast-check"
import {
  bindingOf,
  decodeCursor,
  encodeCursor,
  LISTING_SORTS,
  type ListingFilters,
  type ListingSort,
  NO_PRICE_ASC,
  NO_PRICE_DESC,
  priceKey
} from "../../src/domain/Cursor.js"
import { makeServiceSecret } from "../../src/platform/ServiceSecret.js"

const secret = makeServiceSecret(Buffer.from("cursor-property-test-secret"))
const sign = (p: unknown) => secret.sign("listings-cursor", p)
const verify = (t: string) => Option.getOrUndefined(secret.verify("listings-cursor", t))

const filters: fc.Arbitrary<ListingFilters> = fc.record({
  environment: fc.constantFrom("live" as const, "sandbox" as const),
  q: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
  tld: fc.option(fc.constantFrom("com", "net", "co.uk"), { nil: undefined }),
  maxCents: fc.option(fc.nat({ max: 10_000_000 }), { nil: undefined })
})
const sort = fc.constantFrom(...LISTING_SORTS)
const timeKey = fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
  .map((d) => d.toISOString().replace("Z", "123Z"))
const positionFor = (s: ListingSort) =>
  fc.record({
    key: s === "newest" ? timeKey : fc.integer({ min: NO_PRICE_DESC, max: NO_PRICE_ASC }),
    id: fc.string({ minLength: 1, maxLength: 30 })
  })

describe("listing cursors", () => {
  it("decode(encode(position)) is the position, for the same filters and sort", () => {
    fc.assert(
      fc.property(filters, sort.chain((s) => fc.tuple(fc.constant(s), positionFor(s))), (f, [s, position]) => {
        const token = encodeCursor(sign, bindingOf(f, s), position)
        expect(decodeCursor(verify, token, f, s)).toEqual(Either.right(position))
      })
    )
  })

  it("any other filters or sort is other_query", () => {
    fc.assert(
      fc.property(filters, filters, sort, sort, (f1, f2, s1, s2) => {
        fc.pre(bindingOf(f1, s1) !== bindingOf(f2, s2))
        const token = encodeCursor(sign, bindingOf(f1, s1), {
          key: s1 === "newest" ? "2026-01-01T00:00:00.000000Z" : 100,
          id: "lst_x"
        })
        const decoded = decodeCursor(verify, token, f2, s2)
        expect(Either.isLeft(decoded) && decoded.left).toBe("other_query")
      })
    )
  })

  it("the binding ignores nothing: each filter and the sort change it", () => {
    fc.assert(
      fc.property(filters, sort, (f, s) => {
        const b = bindingOf(f, s)
        expect(bindingOf({ ...f, q: `${f.q ?? ""}x` }, s)).not.toBe(b)
        expect(bindingOf({ ...f, tld: f.tld === "com" ? "net" : "com" }, s)).not.toBe(b)
        expect(bindingOf({ ...f, maxCents: (f.maxCents ?? 0) + 1 }, s)).not.toBe(b)
        expect(bindingOf({ ...f, environment: f.environment === "live" ? "sandbox" : "live" }, s)).not.toBe(b)
        for (const other of LISTING_SORTS) if (other !== s) expect(bindingOf(f, other)).not.toBe(b)
        expect(bindingOf({ ...f }, s)).toBe(b)
      })
    )
  })

  it("an altered token, one signed with another key, or garbage is malformed", () => {
    const f: ListingFilters = { environment: "live" }
    const other = makeServiceSecret(Buffer.from("another-secret"))
    fc.assert(
      fc.property(fc.nat(), fc.string(), (at, garbage) => {
        const token = encodeCursor(sign, bindingOf(f, "price_asc"), { key: 1234, id: "lst_a" })
        const i = at % token.length
        const flipped = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1)
        if (flipped !== token) expect(decodeCursor(verify, flipped, f, "price_asc")).toEqual(Either.left("malformed"))
        const foreign = encodeCursor((p) => other.sign("listings-cursor", p), bindingOf(f, "price_asc"), {
          key: 1234,
          id: "lst_a"
        })
        expect(decodeCursor(verify, foreign, f, "price_asc")).toEqual(Either.left("malformed"))
        if (garbage !== token) expect(Either.isLeft(decodeCursor(verify, garbage, f, "price_asc"))).toBe(true)
      })
    )
  })

  it("a signed payload with the wrong key type for the sort is malformed", () => {
    const f: ListingFilters = { environment: "live" }
    const priceCursor = encodeCursor(sign, bindingOf(f, "newest"), { key: 5, id: "lst_a" })
    expect(decodeCursor(verify, priceCursor, f, "newest")).toEqual(Either.left("malformed"))
    const timeCursor = encodeCursor(sign, bindingOf(f, "price_asc"), {
      key: "2026-01-01T00:00:00.000000Z",
      id: "lst_a"
    })
    expect(decodeCursor(verify, timeCursor, f, "price_asc")).toEqual(Either.left("malformed"))
  })

  it("listings without a buy-now price sort last in both directions", () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 52 }), (cents) => {
        expect(priceKey("price_asc", null)).toBeGreaterThan(priceKey("price_asc", cents))
        expect(priceKey("price_desc", null)).toBeLessThan(priceKey("price_desc", cents))
      })
    )
  })
})
