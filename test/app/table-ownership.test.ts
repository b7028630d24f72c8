/**
 * Each table has one owning slice (docs/architecture.md, "Tables and their owners"): the SQL that
 * names a table lives in that slice, and another slice reaches the data through the owner's
 * service or a port it owns. The tables are read from the migrations (`create table`), the SQL
 * from the sources (every sql`…` template); a slice is a capability folder, or a Partner API part
 * (`partner/orders`, `partner/ledger`, …; the partner root is `partner`). `app/` and the entry
 * points are slices too. Reads the files; starts nothing.
 *
 * CROSSINGS lists the slices that still name another slice's table, exactly: a new crossing fails
 * this test, and so does one that was removed without striking it from the list.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"

const root = Path.join(import.meta.dirname, "..", "..")
const files = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(Path.join(dir, e.name)) : e.name.endsWith(".ts") ? [Path.join(dir, e.name)] : []
  )

const tables = new Set(
  files(Path.join(root, "migrations")).flatMap((f) =>
    [...Fs.readFileSync(f, "utf8").matchAll(/create\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?"?(\w+)/gi)]
      .map((m) => m[1]!.toLowerCase())
  )
)

const sliceOf = (file: string) => {
  const parts = Path.relative(Path.join(root, "src"), file).split(Path.sep)
  if (parts.length === 1) return "entry points"
  return parts[0] === "partner" && parts.length > 2 ? `partner/${parts[1]}` : parts[0]!
}

/** table → the slices whose SQL names it. */
const namedBy = new Map<string, Set<string>>()
for (const file of files(Path.join(root, "src"))) {
  const text = Fs.readFileSync(file, "utf8")
  const statements = [...text.matchAll(/sql(?:<[^>]*>)?`([^`]*)`/g)].map((m) => m[1]!).join("\n")
  for (const m of statements.matchAll(/\b(?:from|join|into|update|table)\s+(\w+)/gi)) {
    const table = m[1]!.toLowerCase()
    if (!tables.has(table)) continue
    namedBy.set(table, (namedBy.get(table) ?? new Set()).add(sliceOf(file)))
  }
}

/** Table → its owner, then the other slices that still name it (to be moved behind the owner). */
const CROSSINGS: Record<string, readonly [owner: string, ...others: Array<string>]> = {}

describe("table ownership", () => {
  it("reads the tables and the SQL it checks", () => {
    expect(tables.size).toBeGreaterThan(40)
    expect(namedBy.size).toBeGreaterThan(40)
  })

  it("every table is named by one slice's SQL, except the listed crossings", () => {
    const crossing = Object.fromEntries(
      [...namedBy].filter(([, slices]) => slices.size > 1).map(([table, slices]) => [table, [...slices].sort()])
    )
    const listed = Object.fromEntries(Object.entries(CROSSINGS).map(([table, slices]) => [table, [...slices].sort()]))
    expect(crossing).toEqual(listed)
  })
})
