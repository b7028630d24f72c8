/**
 * How a receiver's answer becomes the text kept with its attempt (Delivery.ts `answerText`): any
 * bytes decode (invalid UTF-8 replaced), NUL never reaches PostgreSQL, and a character split by
 * the 4 KiB cut is dropped rather than shown as a replacement. Pure; starts nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { answerText, RESPONSE_BODY_LIMIT } from "../../../src/partner/webhooks/Delivery.js"

const bytes = (...parts: ReadonlyArray<string | ReadonlyArray<number>>) =>
  new Uint8Array(parts.flatMap((p) => typeof p === "string" ? [...Buffer.from(p, "utf8")] : [...p]))

describe("answerText", () => {
  it("keeps UTF-8 as it came, replaces invalid bytes and NUL", () => {
    expect(answerText(bytes("déjà vu ✓"), false)).toBe("déjà vu ✓")
    expect(answerText(bytes("a", [0xff, 0xfe], "b"), false)).toBe("a\uFFFD\uFFFDb")
    expect(answerText(bytes("a", [0], "b"), false)).toBe("a\uFFFDb")
    expect(answerText(bytes(""), false)).toBe("")
  })

  it("drops a character split by the cut, but not one cut short by the receiver itself", () => {
    // 4095 bytes, then the first of é's two bytes: what Outbound keeps of a longer answer.
    const cut = bytes("a".repeat(RESPONSE_BODY_LIMIT - 1), [0xc3])
    expect(cut.byteLength).toBe(RESPONSE_BODY_LIMIT)
    expect(answerText(cut, true)).toBe("a".repeat(RESPONSE_BODY_LIMIT - 1))
    expect(answerText(cut, false)).toBe(`${"a".repeat(RESPONSE_BODY_LIMIT - 1)}\uFFFD`)
  })
})
