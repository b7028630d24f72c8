/**
 * Every example the served OpenAPI document shows for a request body or a JSON success response is
 * a value the service really accepts or sends: it decodes with the endpoint's own Effect schema
 * (refinements included), and it is not a placeholder ("string", "…"). Operations still without an
 * example are listed in WITHOUT_EXAMPLE; the list may only shrink (it is empty: keep it so). A
 * "string" that the schema itself demands as a literal is a value, not a placeholder.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { describe, expect, it } from "@effect/vitest"
import { Either, Option, ParseResult, Schema, type SchemaAST } from "effect"
import { Api } from "../../../src/app/Api.js"
import { publishedDocument } from "../../../src/platform/openapi/OpenApiDeployment.js"

type Json = Record<string, any>

/**
 * `operationId request|status` of the bodies and answers that have no example yet (issue 36,
 * item 1: each needs an `examples` annotation on its schema or on its fields).
 */
const WITHOUT_EXAMPLE = new Set<string>([])

/** The schemas of each operation, by operation id (`group.endpoint`). */
const schemasByOperation = () => {
  const out = new Map<string, { payloads: Map<string, SchemaAST.AST>; successes: Map<string, SchemaAST.AST> }>()
  HttpApi.reflect(Api as any, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, payloads, successes }) => {
      const ok = new Map<string, SchemaAST.AST>()
      for (const [status, s] of successes) if (Option.isSome(s.ast)) ok.set(String(status), s.ast.value)
      const bodies = new Map<string, SchemaAST.AST>()
      for (const [type, p] of payloads) bodies.set(type, p.ast)
      out.set(`${group.identifier}.${endpoint.name}`, { payloads: bodies, successes: ok })
    }
  })
  return out
}

/** The examples of one media type: `example`, or each of `examples`. */
const examplesOf = (media: Json): Array<unknown> =>
  media.example !== undefined
    ? [media.example]
    : Object.values<Json>(media.examples ?? {}).map((e) => e.value)

/** The string literals a schema demands somewhere (`type: "string"` of the batch catalogue is one). */
const literalsOf = (ast: SchemaAST.AST | undefined): Set<string> => {
  const found = new Set<string>()
  const seen = new Set<SchemaAST.AST>()
  const walk = (node: SchemaAST.AST) => {
    if (seen.has(node)) return
    seen.add(node)
    switch (node._tag) {
      case "Literal":
        if (typeof node.literal === "string") found.add(node.literal)
        return
      case "TypeLiteral":
        node.propertySignatures.forEach((p) => walk(p.type))
        node.indexSignatures.forEach((i) => walk(i.type))
        return
      case "Union":
        return node.types.forEach(walk)
      case "TupleType":
        node.elements.forEach((e) => walk(e.type))
        return node.rest.forEach((r) => walk(r.type))
      case "Refinement":
        return walk(node.from)
      case "Transformation":
        walk(node.from)
        return walk(node.to)
      case "Suspend":
        return walk(node.f())
      default:
        return
    }
  }
  if (ast !== undefined) walk(ast)
  return found
}

/** Placeholder strings ("string", "…") in an example, but a value the schema demands as a literal. */
const placeholders = (value: unknown, literals: Set<string>, at = "$"): Array<string> => {
  if (typeof value === "string") {
    return (value === "string" && !literals.has(value)) || value.includes("…") ? [`${at} = ${value}`] : []
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholders(v, literals, `${at}[${i}]`))
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => placeholders(v, literals, `${at}.${k}`))
  }
  return []
}

const decodeProblem = (ast: SchemaAST.AST, example: unknown): string | undefined => {
  const result = Schema.decodeUnknownEither(Schema.make(ast))(example, { onExcessProperty: "error" })
  return Either.isLeft(result) ? ParseResult.TreeFormatter.formatErrorSync(result.left) : undefined
}

interface Target {
  readonly key: string
  readonly media: Json
  readonly ast: SchemaAST.AST | undefined
}

/** Each request body (JSON or form) and JSON success answer of the document, with its schema. */
const targets = (): Array<Target> => {
  // As served: JSON (a `Date` example is its RFC 3339 string on the wire).
  const doc = JSON.parse(
    JSON.stringify(publishedDocument(Api, { baseUrl: "https://api.example.test", deprecations: {} }))
  )
  const schemas = schemasByOperation()
  const out: Array<Target> = []
  for (const item of Object.values<Json>(doc.paths)) {
    for (const op of Object.values<Json>(item)) {
      if (typeof op?.operationId !== "string") continue
      // `portfolio.bulk.lock` is `portfolio.bulk` listed once per operation name (withLiteralPaths).
      const id = [...schemas.keys()].find((k) => op.operationId === k || op.operationId.startsWith(`${k}.`))
      const own = id === undefined ? undefined : schemas.get(id)
      for (const [type, media] of Object.entries<Json>(op.requestBody?.content ?? {})) {
        if (type !== "application/json" && type !== "application/x-www-form-urlencoded") continue
        out.push({ key: `${op.operationId} request ${type}`, media, ast: own?.payloads.get(type) })
      }
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        const media = response.content?.["application/json"]
        if (!status.startsWith("2") || media === undefined) continue
        out.push({ key: `${op.operationId} ${status}`, media, ast: own?.successes.get(status) })
      }
    }
  }
  return out
}

describe("OpenAPI examples", () => {
  const all = targets()

  it("every request body and JSON success answer has an example", () => {
    const missing = all.filter((t) => examplesOf(t.media).length === 0).map((t) => t.key)
    expect(missing.filter((k) => !WITHOUT_EXAMPLE.has(k))).toEqual([])
    // An operation given its example leaves the list.
    expect([...WITHOUT_EXAMPLE].filter((k) => !missing.includes(k))).toEqual([])
  })

  it("every example decodes with the endpoint's schema", () => {
    const problems: Array<string> = []
    for (const t of all) {
      for (const example of examplesOf(t.media)) {
        if (t.ast === undefined) {
          problems.push(`${t.key}: no schema found for the example`)
          continue
        }
        const problem = decodeProblem(t.ast, example)
        if (problem !== undefined) problems.push(`${t.key}: ${problem}`)
      }
    }
    expect(problems).toEqual([])
  })

  it("no example is a placeholder", () => {
    const found = all.flatMap((t) => {
      const literals = literalsOf(t.ast)
      return examplesOf(t.media).flatMap((e) => placeholders(e, literals).map((p) => `${t.key}: ${p}`))
    })
    expect(found).toEqual([])
  })
})
