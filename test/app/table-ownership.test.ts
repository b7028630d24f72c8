/**
 * Each table has one owning slice (docs/architecture.md, "Tables and their owners"): the SQL that
 * names a table lives in that slice, and another slice reaches the data through the owner's
 * service or a port it owns. The tables are read from the migrations (`create table`); the SQL
 * from the sources, parsed (TypeScript's parser): the text of every template, tagged or not and
 * nested ones included (sql`…`, a check's rows(Row)`…`, the text of sql.unsafe(`…`)), and of
 * every string literal (sql.unsafe("…")), where a table follows `from`, `join`, `into`, `update`
 * or `table`; and the table a SQL helper takes by name (`TABLE_HELPERS`: bulkInsert(sql,
 * "settlement_lines", …)). A slice is a capability folder, or a Partner API part
 * (`partner/orders`, `partner/ledger`, …; the partner root is `partner`). `app/` and the entry
 * points are slices too. Reads the files; starts nothing.
 *
 * CROSSINGS lists the slices that still name another slice's table, exactly: a new crossing fails
 * this test, and so does one that was removed without striking it from the list.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import ts from "typescript"

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

/** The helpers of src/platform/db that splice a table given by name into their statement. */
const TABLE_HELPERS = new Set(["bulkInsert", "bulkInsertText"])

const parse = (file: string) => ts.createSourceFile(file, Fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)

const calleeName = (call: ts.CallExpression) =>
  ts.isIdentifier(call.expression)
    ? call.expression.text
    : ts.isPropertyAccessExpression(call.expression)
    ? call.expression.name.text
    : undefined

/** The tables a source's SQL names: its literals' text, and the names passed to `TABLE_HELPERS`. */
const tablesNamedIn = (file: string): Array<string> => {
  const named: Array<string> = []
  const visit = (node: ts.Node) => {
    const text = ts.isTemplateExpression(node)
      ? [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(" ")
      : ts.isNoSubstitutionTemplateLiteral(node) || ts.isStringLiteral(node)
      ? node.text
      : undefined
    if (text !== undefined) {
      for (const m of text.matchAll(/\b(?:from|join|into|update|table)\s+(\w+)/gi)) named.push(m[1]!.toLowerCase())
    }
    if (ts.isCallExpression(node) && TABLE_HELPERS.has(calleeName(node) ?? "")) {
      for (const a of node.arguments) if (ts.isStringLiteralLike(a)) named.push(a.text.toLowerCase())
    }
    ts.forEachChild(node, visit)
  }
  visit(parse(file))
  return named.filter((t) => tables.has(t))
}

/** table → the slices whose SQL names it. */
const namedBy = new Map<string, Set<string>>()
for (const file of files(Path.join(root, "src"))) {
  for (const table of tablesNamedIn(file)) namedBy.set(table, (namedBy.get(table) ?? new Set()).add(sliceOf(file)))
}

/** Table → its owner, then the other slices that still name it (to be moved behind the owner). */
const CROSSINGS: Record<string, readonly [owner: string, ...others: Array<string>]> = {}

describe("table ownership", () => {
  it("reads the tables and the SQL it checks", () => {
    expect(tables.size).toBeGreaterThan(40)
    expect(namedBy.size).toBeGreaterThan(40)
  })

  it("sees SQL outside sql`…`: a check's rows(Row)`…`, sql.unsafe, nested templates, helpers taking a table", () => {
    const seen = (file: string) => new Set(tablesNamedIn(Path.join(root, "src", file)))
    expect(seen("referrals/Repo.ts")).toContain("referral_daily") // sql.unsafe(`…`)
    expect(seen("referrals/Repo.ts")).toContain("referral_clicks") // bulkInsertText("referral_clicks", …)
    expect(seen("partner/ledger/RepoSettlement.ts")).toContain("settlement_lines") // bulkInsert(sql, "…", …)
    expect(seen("partner/Repo.ts")).toContain("partner_nonces") // after a nested `${…}` template
  })

  it("every helper of src/platform/db that takes a table by name is one it reads (TABLE_HELPERS)", () => {
    const takesTable = files(Path.join(root, "src", "platform", "db")).flatMap((file) => {
      const names: Array<string> = []
      const visit = (node: ts.Node) => {
        if (
          ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer &&
          (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer)) &&
          node.initializer.parameters.some((p) => ts.isIdentifier(p.name) && /^tables?$/.test(p.name.text))
        ) names.push(node.name.text)
        if (
          ts.isFunctionDeclaration(node) && node.name && node.parameters.some((p) => /^tables?$/.test(p.name.getText()))
        ) {
          names.push(node.name.text)
        }
        ts.forEachChild(node, visit)
      }
      visit(parse(file))
      return names
    })
    expect(takesTable.sort()).toEqual([...TABLE_HELPERS].sort())
  })

  it("every table is named by one slice's SQL, except the listed crossings", () => {
    const crossing = Object.fromEntries(
      [...namedBy].filter(([, slices]) => slices.size > 1).map(([table, slices]) => [table, [...slices].sort()])
    )
    const listed = Object.fromEntries(Object.entries(CROSSINGS).map(([table, slices]) => [table, [...slices].sort()]))
    expect(crossing).toEqual(listed)
  })
})
