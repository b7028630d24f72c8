/**
 * The edge of the one page cursor (src/platform/http/PageCursor.ts): every paged list has its own
 * name, and a bad cursor is answered as that list's docs show (pinned here per list, byte for
 * byte but the request id); the one `InvalidCursor` wire decodes, in a typed client, only what a
 * list sends for a cursor, so another `validation_error` keeps its own class.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import {
  type InvalidCursor,
  InvalidCursorWire,
  pageCursor,
  PAGED_LISTS,
  type PagedList
} from "../../../src/platform/http/PageCursor.js"
import { makeServiceSecret } from "../../../src/platform/ServiceSecret.js"

const secrets = makeServiceSecret(Buffer.from("page-cursor-edge-test-secret"))
const encode = (e: InvalidCursor) => Effect.runSync(Schema.encode(InvalidCursorWire)(e))

const PARTNER_MALFORMED = "cursor: not a cursor this endpoint issued to you"
const PARTNER_OTHER = "cursor: was issued for other filters; send the same filters as the first page"
const CONSOLE_MALFORMED = "cursor: not a page link this console gave you; start again from the first page"
const CONSOLE_OTHER = "cursor: was issued for other filters; start again from the first page"

/** What each list answers: [code, message when not ours, message for other filters, details?]. */
const ANSWERS: Record<keyof typeof PAGED_LISTS, readonly [string, string, string, boolean]> = {
  listings: [
    "invalid_cursor",
    "The cursor is not one this service issued; use page.next_cursor exactly as returned",
    "This cursor was issued for other filters or another sort; repeat the query that returned it, or start again without a cursor",
    true
  ],
  partnerOrders: ["validation_error", PARTNER_MALFORMED, PARTNER_OTHER, false],
  brokerageCases: ["validation_error", PARTNER_MALFORMED, PARTNER_OTHER, false],
  webhookDeliveries: ["validation_error", PARTNER_MALFORMED, PARTNER_OTHER, false],
  referralLinks: ["validation_error", PARTNER_MALFORMED, PARTNER_OTHER, false],
  referralSales: ["validation_error", PARTNER_MALFORMED, PARTNER_OTHER, false],
  referralCommissions: ["validation_error", PARTNER_MALFORMED, PARTNER_OTHER, false],
  settlements: ["invalid_cursor", PARTNER_MALFORMED, PARTNER_OTHER, false],
  transactions: ["invalid_cursor", PARTNER_MALFORMED, PARTNER_OTHER, false],
  payouts: ["invalid_cursor", PARTNER_MALFORMED, PARTNER_OTHER, false],
  myPayouts: ["invalid_cursor", PARTNER_MALFORMED, PARTNER_OTHER, false],
  adminStatements: ["invalid_cursor", PARTNER_MALFORMED, PARTNER_OTHER, false],
  auditLog: ["invalid_cursor", PARTNER_MALFORMED, PARTNER_OTHER, false],
  consoleOrders: ["invalid_cursor", CONSOLE_MALFORMED, CONSOLE_OTHER, false],
  consoleCheckoutSessions: ["invalid_cursor", CONSOLE_MALFORMED, CONSOLE_OTHER, false],
  consoleBrokerage: ["invalid_cursor", CONSOLE_MALFORMED, CONSOLE_OTHER, false],
  consoleTransactions: ["invalid_cursor", CONSOLE_MALFORMED, CONSOLE_OTHER, false],
  opsPayouts: ["invalid_cursor", CONSOLE_MALFORMED, CONSOLE_OTHER, false],
  opsCartItems: ["invalid_cursor", CONSOLE_MALFORMED, CONSOLE_OTHER, false],
  opsAudit: ["invalid_cursor", CONSOLE_MALFORMED, CONSOLE_OTHER, false]
}

const refusedWith = (e: Effect.Effect<unknown, InvalidCursor>) => Effect.runSync(Effect.flip(e)) satisfies InvalidCursor

describe("paged lists", () => {
  it("each has its own name (sealed into its cursors)", () => {
    const names = Object.values(PAGED_LISTS).map((l) => l.name)
    expect(new Set(names).size).toBe(names.length)
  })

  it("each answers a bad cursor as its docs show", () => {
    const check = <P>(key: keyof typeof PAGED_LISTS, list: PagedList<P>, position: P) => {
      const [code, malformed, other, details] = ANSWERS[key]
      const issued = pageCursor(secrets, list, "cred_a", ["a"]).next(position, true)!
      expect(encode(refusedWith(pageCursor(secrets, list, "cred_a", ["a"]).read("forged"))), key).toEqual({
        error: {
          code,
          message: malformed,
          request_id: "req_unknown",
          ...(details ? { details: { field: "cursor", problem: "malformed" } } : {})
        }
      })
      expect(encode(refusedWith(pageCursor(secrets, list, "cred_a", ["b"]).read(issued))), key).toEqual({
        error: {
          code,
          message: other,
          request_id: "req_unknown",
          ...(details ? { details: { field: "cursor", problem: "other_query" } } : {})
        }
      })
      // Another caller's cursor, or another list's, is "not ours".
      expect(refusedWith(pageCursor(secrets, list, "cred_b", ["a"]).read(issued)).message, key).toBe(malformed)
      const another = key === "partnerOrders" ? PAGED_LISTS.settlements : PAGED_LISTS.partnerOrders
      const foreign = pageCursor(secrets, another, "cred_a", ["a"]).next("id_a", true)!
      expect(refusedWith(pageCursor(secrets, list, "cred_a", ["a"]).read(foreign)).message, key).toBe(malformed)
      // …and its own cursor gives back the position.
      expect(Effect.runSync(pageCursor(secrets, list, "cred_a", ["a"]).read(issued)), key).toEqual(position)
    }
    check("listings", PAGED_LISTS.listings, { key: 5, id: "lst_a" })
    for (const key of Object.keys(ANSWERS) as Array<keyof typeof PAGED_LISTS>) {
      if (key !== "listings") check(key, PAGED_LISTS[key], "id_a")
    }
  })

  it("a typed client reads InvalidCursor only from a cursor's answer", () => {
    const decode = Schema.decodeUnknownEither(InvalidCursorWire)
    const envelope = (code: string, message: string) => ({ error: { code, message, request_id: "req_1" } })
    expect(Either.isRight(decode(envelope("invalid_cursor", "anything")))).toBe(true)
    expect(Either.isRight(decode(envelope("validation_error", PARTNER_MALFORMED)))).toBe(true)
    expect(Either.isLeft(decode(envelope("validation_error", "from: must not be after to")))).toBe(true)
    expect(Either.isLeft(decode(envelope("not_found", "cursor: x")))).toBe(true)
  })
})
