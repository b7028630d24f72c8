/**
 * One error tag, one class, in the whole Api (issue 11). A client derived from the Api decodes an
 * error by its `_tag`; two classes with one tag (checkout's and the orders' `DomainNotAvailable`
 * once) make it answer, and document, the wrong code or status. This walks every endpoint's
 * errors (its own, its group's, its middleware's) through `HttpApi.reflect` and asserts that each
 * `_tag` is carried by exactly one wire schema, so one status and one code.
 */
import { HttpApi } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import * as AST from "effect/SchemaAST"
import { Api } from "../../src/app/Api.js"

interface Carrier {
  readonly status: number
  readonly code: string
  readonly endpoint: string
}

const literalOf = (ast: AST.AST | undefined): string | undefined =>
  ast !== undefined && AST.isLiteral(ast) && typeof ast.literal === "string" ? ast.literal : undefined

const propertyType = (ast: AST.AST, name: string): AST.AST | undefined =>
  AST.getPropertySignatures(ast).find((p) => p.name === name)?.type

/** The wire code an error schema documents: the literal of `error.code`, or `*` when any string. */
const codeOf = (encoded: AST.AST): string => {
  const inner = propertyType(encoded, "error")
  if (inner === undefined) return "*"
  const code = propertyType(inner, "code")
  return literalOf(code) ?? "*"
}

/** Every error `_tag` of the Api, with each distinct wire schema carrying it. */
const errorTags = (): Map<string, Map<AST.AST, Carrier>> => {
  const tags = new Map<string, Map<AST.AST, Carrier>>()
  HttpApi.reflect(Api, {
    onGroup() {},
    onEndpoint({ endpoint, errors, group }) {
      for (const [status, { ast }] of errors) {
        if (Option.isNone(ast)) continue
        const members = AST.isUnion(ast.value) ? ast.value.types : [ast.value]
        for (const member of members) {
          const type = AST.isTransformation(member) ? member.to : member
          const encoded = AST.isTransformation(member) ? member.from : member
          const tag = literalOf(propertyType(type, "_tag"))
          if (tag === undefined) continue
          const carriers = tags.get(tag) ?? new Map<AST.AST, Carrier>()
          if (!carriers.has(member)) {
            carriers.set(member, { status, code: codeOf(encoded), endpoint: `${group.identifier}.${endpoint.name}` })
          }
          tags.set(tag, carriers)
        }
      }
    }
  })
  return tags
}

describe("error tags", () => {
  it("are found for the domain errors the Api declares", () => {
    const tags = errorTags()
    for (const tag of ["DomainNotListed", "InvalidCursor", "NotAnAffiliate", "QuoteExpired", "BadRequest"]) {
      expect(tags.has(tag), tag).toBe(true)
    }
  })

  it("each map to exactly one class: one wire schema, one status, one code", () => {
    const duplicates = [...errorTags()]
      .filter(([, carriers]) => carriers.size > 1)
      .map(([tag, carriers]) => ({ tag, carriers: [...carriers.values()] }))
    expect(duplicates).toEqual([])
  })
})
