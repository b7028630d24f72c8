/** The buy page's CSRF token (src/checkout/BuyForm.ts): one page's, fresh, untampered. */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { BUY_FORM_TTL_S, buyPath, makeBuyForm } from "../../src/checkout/BuyForm.js"

const form = makeBuyForm(Buffer.from("test-key-0123456789abcdef0123456789"))
const NOW = Date.parse("2026-11-27T12:00:00Z")
const env = fc.constantFrom("live" as const, "sandbox" as const)
const domain = fc.stringMatching(/^[a-z0-9-]{1,20}\.[a-z]{2,6}$/)

describe("buy form token", () => {
  it("is valid on its own page, within the day", () => {
    fc.assert(fc.property(env, domain, fc.integer({ min: 0, max: BUY_FORM_TTL_S - 1 }), (e, d, age) => {
      expect(form.valid(form.token(e, d, NOW), e, d, NOW + age * 1000)).toBe(true)
    }))
  })

  it("is refused on another page (other domain or environment), when stale, or when edited", () => {
    fc.assert(fc.property(env, domain, env, domain, (e1, d1, e2, d2) => {
      fc.pre(e1 !== e2 || d1 !== d2)
      expect(form.valid(form.token(e1, d1, NOW), e2, d2, NOW)).toBe(false)
    }))
    const t = form.token("live", "example.com", NOW)
    expect(form.valid(t, "live", "example.com", NOW + (BUY_FORM_TTL_S + 1) * 1000)).toBe(false)
    expect(form.valid(t, "live", "example.com", NOW - 120_000)).toBe(false)
    const [issued, mac] = t.split(".")
    const later = (parseInt(issued!, 36) + 3600).toString(36)
    expect(form.valid(`${later}.${mac}`, "live", "example.com", NOW + 3_600_000)).toBe(false)
    expect(form.valid(`${t}x`, "live", "example.com", NOW)).toBe(false)
    expect(form.valid(`${t}.x`, "live", "example.com", NOW)).toBe(false)
    expect(form.valid(undefined, "live", "example.com", NOW)).toBe(false)
    expect(form.valid("", "live", "example.com", NOW)).toBe(false)
    expect(form.valid("x".repeat(500), "live", "example.com", NOW)).toBe(false)
    expect(makeBuyForm(Buffer.from("another-key")).valid(t, "live", "example.com", NOW)).toBe(false)
  })

  it("posts to the page it came from", () => {
    expect(buyPath("live", "example.com")).toBe("/buy/example.com")
    expect(buyPath("sandbox", "bold-sandbox.dev")).toBe("/buy/bold-sandbox.dev?env=sandbox")
  })
})
