/**
 * The console's SVG bar chart (src/console/Chart.ts), pure: for any non-negative series every bar
 * stays inside the viewBox and no taller than the axis, a zero or empty series still draws, the
 * day labels are the series' days in order, and the chart's table carries the same numbers.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { barChart, layout, niceTop, VIEW } from "../../src/console/Chart.js"

const DAY0 = Date.parse("2026-01-01T00:00:00Z")
const daysOf = (n: number) =>
  Array.from({ length: n }, (_, i) => new Date(DAY0 + i * 86_400_000).toISOString().slice(0, 10))

/** Counts and cents as the analytics answer them, big ones included. */
const valueArb = fc.oneof(fc.nat(20), fc.nat(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }))
const seriesArb = fc.array(valueArb, { minLength: 0, maxLength: 400 })

const EPS = 1e-9

describe("console bar chart", () => {
  it("keeps every bar inside the viewBox and below the axis top, for any non-negative series", () => {
    fc.assert(fc.property(seriesArb, (values) => {
      const l = layout(values)
      expect(l.bars).toHaveLength(values.length)
      expect(l.top).toBeGreaterThanOrEqual(values.reduce((m, v) => Math.max(m, v), 1))
      for (const b of l.bars) {
        expect(b.x).toBeGreaterThanOrEqual(VIEW.left - EPS)
        expect(b.x + b.width).toBeLessThanOrEqual(VIEW.width - VIEW.right + 0.02)
        expect(b.width).toBeGreaterThan(0)
        expect(b.height).toBeGreaterThanOrEqual(0)
        expect(b.y).toBeGreaterThanOrEqual(VIEW.top - EPS)
        expect(b.y + b.height).toBeLessThanOrEqual(VIEW.height - VIEW.bottom + 0.02)
      }
      // Bars follow the days left to right, and a larger value is never a shorter bar.
      for (let i = 1; i < l.bars.length; i++) expect(l.bars[i]!.x).toBeGreaterThan(l.bars[i - 1]!.x)
      for (let i = 0; i < values.length; i++) {
        for (let j = 0; j < values.length && j < 20; j++) {
          if (values[i]! > values[j]!) expect(l.bars[i]!.height).toBeGreaterThanOrEqual(l.bars[j]!.height)
        }
      }
    }))
  })

  it("the axis top is 1, 2 or 5 × 10ⁿ, at or above the largest value", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (max) => {
      const top = niceTop(max)
      expect(top).toBeGreaterThanOrEqual(max)
      expect(top).toBeLessThanOrEqual(max * 5)
      const mantissa = top / 10 ** Math.floor(Math.log10(top) + 1e-12)
      expect([1, 2, 5, 10].some((m) => Math.abs(mantissa - m) < 1e-9)).toBe(true)
    }))
    expect(niceTop(0)).toBe(1)
  })

  it("draws a zero series and an empty one: flat bars on a 0–1 axis", () => {
    const zero = layout([0, 0, 0])
    expect(zero.top).toBe(1)
    expect(zero.bars.every((b) => b.height === 0 && b.y === zero.baseline)).toBe(true)
    const chart =
      barChart({ id: "z", title: "Sales", points: daysOf(3).map((day) => ({ day, value: 0 })), format: String })
        .value
    expect(chart).toContain(`role="img"`)
    expect(chart).toContain(`<title id="z-title">Sales by day</title>`)
    expect(layout([]).bars).toEqual([])
    expect(barChart({ id: "e", title: "Sales", points: [], format: String }).value).toContain("No days.")
  })

  it("labels days in order, from the first, and tables every day with its number", () => {
    fc.assert(fc.property(fc.array(fc.nat(1000), { minLength: 1, maxLength: 120 }), (values) => {
      const days = daysOf(values.length)
      const svg = barChart({
        id: "c",
        title: "Clicks",
        points: values.map((value, i) => ({ day: days[i]!, value })),
        format: String
      }).value
      const labels = [...svg.matchAll(/<text [^>]*text-anchor="middle">([^<]*)<\/text>/g)].map((m) => m[1]!)
      expect(labels[0]).toBe(days[0]!.slice(5))
      expect(labels.length).toBeLessThanOrEqual(7)
      const positions = labels.map((label) => days.findIndex((d) => d.slice(5) === label))
      expect(positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]!))).toBe(true)
      const rows = [...svg.matchAll(/<tr><th scope="row">([^<]*)<\/th><td class="amount">([^<]*)<\/td><\/tr>/g)]
      expect(rows.map((m) => m[1])).toEqual(days)
      expect(rows.map((m) => Number(m[2]))).toEqual(values)
      expect(svg).not.toMatch(/style=/)
    }))
  })
})
