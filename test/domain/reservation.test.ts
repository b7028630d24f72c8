/**
 * Property tests of the reservation rule (src/domain/Reservation.ts): a live hold admits only its
 * holder, an expired hold or none admits everyone, and holding never takes a live hold from its
 * owner nor shortens it. A model run checks that, over any sequence of holds and claims, at most
 * one seller is ever admitted while a hold is live.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { claim, type Hold, hold, holdOf, isLive } from "../../src/domain/Reservation.js"

const seller = fc.constantFrom("ptn_a", "ptn_b", "ptn_marketplace")
const time = fc.integer({ min: 0, max: 10_000 }).map((n) => new Date(1_700_000_000_000 + n * 1000))
const someHold = fc.option(fc.record({ holder: seller, until: time }), { nil: null })

describe("reservation rule", () => {
  it("admits the holder, refuses every other seller until the hold ends, then admits everyone", () => {
    fc.assert(fc.property(someHold, seller, time, (h, who, now) => {
      const c = claim(h, who, now)
      if (h === null || h.until.getTime() <= now.getTime() || h.holder === who) {
        expect(c).toEqual({ ok: true })
      } else {
        expect(c).toEqual({ ok: false, holder: h.holder, heldUntil: h.until })
      }
    }))
  })

  it("holding never takes a live hold from its owner and never shortens the holder's own", () => {
    fc.assert(fc.property(someHold, seller, time, time, (h, who, until, now) => {
      const r = hold(h, who, until, now)
      if (isLive(h, now) && h.holder !== who) {
        expect(r.ok).toBe(false)
        return
      }
      expect(r.ok).toBe(true)
      if (!r.ok) return
      expect(r.next.holder).toBe(who)
      expect(r.next.until.getTime()).toBe(
        isLive(h, now) ? Math.max(h.until.getTime(), until.getTime()) : until.getTime()
      )
    }))
  })

  it("a stored hold needs both columns", () => {
    expect(holdOf(null, new Date(0))).toBeNull()
    expect(holdOf("ptn_a", null)).toBeNull()
    expect(holdOf("ptn_a", new Date(5))).toEqual({ holder: "ptn_a", until: new Date(5) })
  })

  it("model: over any sequence of holds and claims, a live hold admits exactly one seller", () => {
    const step = fc.record({
      kind: fc.constantFrom("hold", "claim"),
      who: seller,
      dt: fc.integer({ min: 0, max: 900 })
    })
    fc.assert(fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      let current: Hold | null = null
      let now = new Date(1_700_000_000_000)
      for (const s of steps) {
        now = new Date(now.getTime() + s.dt * 1000)
        if (s.kind === "hold") {
          const r = hold(current, s.who, new Date(now.getTime() + 600_000), now)
          if (r.ok) current = r.next
        }
        const admitted = ["ptn_a", "ptn_b", "ptn_marketplace"].filter((w) => claim(current, w, now).ok)
        expect(admitted.length).toBe(isLive(current, now) ? 1 : 3)
      }
    }))
  })
})
