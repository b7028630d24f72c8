/**
 * Property tests of the one page cursor (src/domain/PageCursor.ts, sealed as the edge seals it):
 * a cursor gives back its position in its own scope, and is refused everywhere else — altered in
 * any way, sealed with another secret (another deployment), of another list or caller, or of other
 * filters (`other_query`, the one problem a client can fix by repeating its query).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import fc from "fast-check"
import {
  LISTING_SORTS,
  ListingPosition,
  listingScope,
  NO_PRICE_ASC,
  NO_PRICE_DESC,
  priceKey
} from "../../src/domain/ListingOrder.js"
import { type CursorScope, decodeCursor, encodeCursor } from "../../src/domain/PageCursor.js"
import { cursorSealer } from "../../src/platform/http/PageCursor.js"
import { makeServiceSecret } from "../../src/platform/ServiceSecret.js"

const sealer = cursorSealer(makeServiceSecret(Buffer.from("page-cursor-property-test-secret")))
const otherDeployment = cursorSealer(makeServiceSecret(Buffer.from("another-deployment-secret")))

const LIST_NAMES = ["listings", "partner-orders", "brokerage-cases", "settlements", "transactions", "payouts"]
const scope: fc.Arbitrary<CursorScope> = fc.record({
  list: fc.constantFrom(...LIST_NAMES),
  holder: fc.option(fc.constantFrom("cred_a", "cred_b", "admin"), { nil: null }),
  filters: fc.array(fc.oneof(fc.constant(null), fc.string({ maxLength: 12 }), fc.integer()), { maxLength: 5 })
})
const lastId = fc.string({ minLength: 1, maxLength: 40 })
const timeKey = fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
  .map((d) => d.toISOString().replace("Z", "123Z"))
const listingPosition = fc.record({
  key: fc.oneof(timeKey, fc.integer({ min: NO_PRICE_DESC, max: NO_PRICE_ASC })),
  id: lastId
})
const Id = Schema.String

const problemOf = (e: Either.Either<unknown, string>) => Either.isLeft(e) ? e.left : "accepted"

describe("page cursors", () => {
  it("round trip: a cursor gives back its position, in the scope it was issued for", () => {
    fc.assert(
      fc.property(scope, lastId, (s, id) => {
        expect(decodeCursor(sealer, Id, s, encodeCursor(sealer, Id, s, id))).toEqual(Either.right(id))
      })
    )
    fc.assert(
      fc.property(scope, listingPosition, (s, p) => {
        const token = encodeCursor(sealer, ListingPosition, s, p)
        expect(decodeCursor(sealer, ListingPosition, s, token)).toEqual(Either.right(p))
      })
    )
  })

  it("any tampering is refused: a changed, dropped or added character, or garbage", () => {
    fc.assert(
      fc.property(
        scope,
        lastId,
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 1 }),
        fc.string(),
        (s, id, at, c, garbage) => {
          const token = encodeCursor(sealer, Id, s, id)
          const i = at % token.length
          const changed = token.slice(0, i) + c + token.slice(i + 1)
          const dropped = token.slice(0, i) + token.slice(i + 1)
          const added = token.slice(0, i) + c + token.slice(i)
          for (const bad of [changed, dropped, added, garbage, `${token}.`, `${token}=`]) {
            if (bad !== token) expect(problemOf(decodeCursor(sealer, Id, s, bad)), bad).toBe("malformed")
          }
        }
      ),
      { numRuns: 2_000 }
    )
  })

  it("a cursor of another deployment (another SERVICE_SECRET) is refused", () => {
    fc.assert(
      fc.property(scope, lastId, (s, id) => {
        const foreign = encodeCursor(otherDeployment, Id, s, id)
        expect(problemOf(decodeCursor(sealer, Id, s, foreign))).toBe("malformed")
      })
    )
  })

  it("a cursor of list A is refused by list B, and one issued to caller A by caller B", () => {
    fc.assert(
      fc.property(scope, scope, lastId, (a, b, id) => {
        fc.pre(a.list !== b.list || a.holder !== b.holder)
        const token = encodeCursor(sealer, Id, a, id)
        expect(problemOf(decodeCursor(sealer, Id, { ...b, filters: a.filters }, token))).toBe("malformed")
        expect(problemOf(decodeCursor(sealer, Id, b, token))).toBe("malformed")
      })
    )
  })

  it("a cursor of the same list and caller with other filters is other_query", () => {
    fc.assert(
      fc.property(scope, scope, lastId, (a, b, id) => {
        fc.pre(JSON.stringify(a.filters) !== JSON.stringify(b.filters))
        const token = encodeCursor(sealer, Id, a, id)
        expect(problemOf(decodeCursor(sealer, Id, { ...a, filters: b.filters }, token))).toBe("other_query")
      })
    )
  })

  it("a cursor's text does not reveal its position (a price-sort cursor holds a price)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100_000, max: 10 ** 12 }), (cents) => {
        const token = encodeCursor(sealer, ListingPosition, { list: "listings", holder: null, filters: [] }, {
          key: cents,
          id: "lst_x"
        })
        const decoded = token.split(".").map((part) => Buffer.from(part, "base64url").toString("latin1")).join(" ")
        expect(decoded).not.toContain(String(cents))
      })
    )
  })
})

describe("listing order", () => {
  it("the listing scope changes with every filter and the sort", () => {
    const base = { environment: "live" as const, q: "shop", tld: "com", maxCents: 100 }
    const scopes = new Set([
      listingScope(base, "newest"),
      listingScope({ ...base, environment: "sandbox" }, "newest"),
      listingScope({ ...base, q: "shops" }, "newest"),
      listingScope({ ...base, tld: "net" }, "newest"),
      listingScope({ ...base, maxCents: 101 }, "newest"),
      ...LISTING_SORTS.map((s) => listingScope(base, s))
    ].map((s) => JSON.stringify(s)))
    expect(scopes.size).toBe(7)
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
