/**
 * The batch half of click uniqueness (src/referrals/Visitors.ts) against the rule itself
 * (src/domain/Referral.ts `classifyClick` over the whole click sequence): however a sequence is
 * cut into batches, the in-batch decisions plus the shared memory's decision on each visitor's
 * first click of a batch give the same answer. The shared memory here mirrors the upsert of
 * src/referrals/Repo.ts `writeClicks` (unique iff the first click is more than the window after
 * the stored last click; the last click moves forward either way); the HTTP tests run the SQL.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { classifyClick } from "../../src/domain/Referral.js"
import { classifyBatch } from "../../src/referrals/Visitors.js"

const REPEAT = 30 * 60_000

describe("classifyBatch", () => {
  it("batches plus the shared memory decide exactly as the rule over the whole sequence", () => {
    const ev = fc.record({
      linkId: fc.constantFrom("l1", "l2"),
      visitor: fc.constantFrom("v1", "v2", "v3"),
      bot: fc.boolean(),
      gap: fc.integer({ min: 0, max: 3 * REPEAT }),
      cut: fc.boolean()
    })
    fc.assert(fc.property(fc.array(ev, { maxLength: 60 }), (events) => {
      let t = 0
      const clicks = events.map((e, i) => ({
        id: `c${String(i).padStart(3, "0")}`,
        linkId: e.linkId,
        visitor: e.visitor,
        bot: e.bot,
        at: (t += e.gap),
        cut: e.cut
      }))
      const seen = new Map<string, number>()
      const expected = clicks.map((c) => classifyClick(seen, c, REPEAT))

      const stored = new Map<string, { last: number; uniqueId: string }>()
      const actual = new Map<string, boolean>()
      let batch: Array<typeof clicks[number]> = []
      const write = () => {
        const { unique, visits } = classifyBatch(batch, REPEAT)
        const won = new Set<string>()
        for (const v of visits) {
          const key = `${v.link_id}|${v.visitor}`
          const row = stored.get(key)
          const wins = row === undefined || v.unique_at.getTime() > row.last + REPEAT
          stored.set(key, {
            last: Math.max(row?.last ?? 0, v.last_at.getTime()),
            uniqueId: wins ? v.unique_click_id : row!.uniqueId
          })
          if (stored.get(key)!.uniqueId === v.unique_click_id) won.add(v.unique_click_id)
        }
        const contested = new Set(visits.map((v) => v.unique_click_id))
        for (const c of batch) actual.set(c.id, unique.get(c.id)! && (!contested.has(c.id) || won.has(c.id)))
        batch = []
      }
      for (const c of clicks) {
        batch.push(c)
        if (c.cut) write()
      }
      write()
      expect(clicks.map((c) => actual.get(c.id))).toEqual(expected)
    }))
  })

  it("one visit per link and visitor, bots left out, sorted; first and last click of each", () => {
    const { unique, visits } = classifyBatch([
      { id: "c3", linkId: "l1", visitor: "v2", at: 30, bot: false },
      { id: "c1", linkId: "l1", visitor: "v2", at: 10, bot: false },
      { id: "c2", linkId: "l1", visitor: "v1", at: 20, bot: true },
      { id: "c4", linkId: "l0", visitor: "v9", at: 40, bot: false }
    ], 1_000)
    expect(visits).toEqual([
      { link_id: "l0", visitor: "v9", unique_click_id: "c4", unique_at: new Date(40), last_at: new Date(40) },
      { link_id: "l1", visitor: "v2", unique_click_id: "c1", unique_at: new Date(10), last_at: new Date(30) }
    ])
    expect(Object.fromEntries(unique)).toEqual({ c1: true, c2: false, c3: false, c4: true })
  })
})
