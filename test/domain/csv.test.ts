/**
 * The CSV writer of the money exports (src/domain/Csv.ts): what csv-parse reads back is what was
 * written, for any text; a text cell a spreadsheet would run as a formula is guarded with `'`;
 * numbers stay numbers (a negative amount is not "guarded").
 */
import { parse } from "csv-parse/sync"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { csv, field } from "../../src/domain/Csv.js"

const guarded = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s)

describe("CSV", () => {
  it("round-trips any text and number through csv-parse, one header row, formula cells guarded", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: "grapheme" }), fc.integer({ min: -1e12, max: 1e12 }), fc.string()), {
          maxLength: 20
        }),
        (rows) => {
          const text = csv(["name", "cents", "note"], rows)
          expect(text.endsWith("\r\n")).toBe(true)
          const back: Array<Array<string>> = parse(text, { relax_column_count: false })
          expect(back[0]).toEqual(["name", "cents", "note"])
          expect(back.slice(1)).toEqual(rows.map(([a, n, b]) => [guarded(a), String(n), guarded(b)]))
        }
      ),
      { numRuns: 300 }
    )
  })

  it("guards formulas and quotes what needs quoting", () => {
    expect(field("=HYPERLINK(\"http://evil\",\"x\")")).toBe("\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\"")
    expect(field("+1")).toBe("'+1")
    expect(field("-1")).toBe("'-1")
    expect(field("@SUM(A1)")).toBe("'@SUM(A1)")
    expect(field(-1500)).toBe("-1500")
    expect(field("a,b")).toBe("\"a,b\"")
    expect(field("line\nbreak")).toBe("\"line\nbreak\"")
    expect(field(null)).toBe("")
    expect(csv(["a"], [])).toBe("a\r\n")
    expect(() => csv(["a", "b"], [["x"]])).toThrow(RangeError)
  })
})
