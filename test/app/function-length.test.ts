/**
 * No function over 80 lines (issue 31), service and handler-group constructors aside: a function
 * whose body ends by returning the service's methods (an object, `Tag.of({…})`, a value built
 * above) or the handler chain is a module's list of operations, each a function of its own, and is
 * measured through those. Reads the sources with the TypeScript parser; starts nothing.
 *
 * LONG lists the functions that are still longer, exactly (file, and the name the function is
 * bound to or found in): a new one fails this test, and so does one that was shortened without
 * striking it from the list.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import ts from "typescript"

const src = Path.join(import.meta.dirname, "..", "..", "src")
const files = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(Path.join(dir, e.name)) : e.name.endsWith(".ts") ? [Path.join(dir, e.name)] : []
  )

const MAX_LINES = 80

/** A service's or a handler group's constructor: it ends by returning what it built. */
const isConstructor = (fn: ts.SignatureDeclaration & { readonly body?: ts.Node | undefined }): boolean => {
  const body = fn.body
  if (body === undefined) return false
  if (!ts.isBlock(body)) return ts.isFunctionLike(body) || ts.isCallExpression(body)
  const last = body.statements.at(-1)
  if (last === undefined || !ts.isReturnStatement(last) || last.expression === undefined) return false
  let returned: ts.Expression = last.expression
  while (ts.isAsExpression(returned) || ts.isSatisfiesExpression(returned) || ts.isParenthesizedExpression(returned)) {
    returned = returned.expression
  }
  if (ts.isObjectLiteralExpression(returned) || ts.isIdentifier(returned)) return true
  if (ts.isCallExpression(returned) && returned.arguments.some(ts.isObjectLiteralExpression)) return true
  return /^handlers\b/.test(returned.getText())
}

/** The name a function is bound to (a declaration, a property, a method), else its nearest named ancestor's. */
const nameOf = (node: ts.Node): string => {
  for (let at: ts.Node | undefined = node; at !== undefined; at = at.parent) {
    if (
      (ts.isVariableDeclaration(at) || ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at) ||
        ts.isPropertyAssignment(at)) && at.name !== undefined && ts.isIdentifier(at.name)
    ) return at.name.text
  }
  return "(module)"
}

const longFunctions = files(src).flatMap((file) => {
  const source = ts.createSourceFile(file, Fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line
      const last = source.getLineAndCharacterOfPosition(node.end).line
      if (last - first + 1 > MAX_LINES && !isConstructor(node)) {
        found.push(`${Path.relative(src, file)} ${nameOf(node)}`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
})

/** Still over the limit; strike a line when its function is split. */
const LONG: ReadonlyArray<string> = []

describe("function length", () => {
  it(`no function over ${MAX_LINES} lines but the ones listed (constructors aside)`, () => {
    expect([...longFunctions].sort()).toEqual([...LONG].sort())
  })
})
