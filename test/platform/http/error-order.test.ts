/**
 * A typed client (HttpApiClient) decodes an error answer to the first class declared at its status
 * that accepts it, and the generic classes (BadRequest, NotFound, Conflict, …) accept any code. So
 * every endpoint declares its own error classes before the generic ones, and a client gets
 * `InvalidCursor` or `UnknownTool` rather than `BadRequestError`. (A generic class a group's
 * middleware declares comes first whatever the endpoint does; the specific classes behind it share
 * its code, e.g. SandboxOnly and the partner auth's Forbidden are both 403 `forbidden`.)
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { describe, expect, it } from "@effect/vitest"
import type * as AST from "effect/SchemaAST"
import { Api } from "../../../src/app/Api.js"
import * as Errors from "../../../src/platform/http/Errors.js"
import { GENERIC_ERRORS } from "../../support/ApiClient.js"

const GENERIC = new Set<AST.AST>(GENERIC_ERRORS.map(([, wire]) => wire.ast))

/** The members of an endpoint's error union, in declaration order. */
const membersOf = (ast: AST.AST): Array<AST.AST> => ast._tag === "Union" ? ast.types.flatMap(membersOf) : [ast]

/** A class of the endpoint's own (not generic, not a legacy `{error}` answer, which carries no code). */
const isSpecific = (m: AST.AST) =>
  !GENERIC.has(m) && m._tag !== "NeverKeyword" &&
  !(m._tag === "Transformation" && m.from === Errors.LegacyErrorEnvelope.ast)

/** Endpoints declaring a generic error class before one of their own at the same status. */
const genericFirst = (api: HttpApi.HttpApi.Any) => {
  const found: Array<string> = []
  HttpApi.reflect(api as any, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      const own = membersOf(endpoint.errorSchema.ast)
      for (const [i, m] of own.entries()) {
        if (!GENERIC.has(m)) continue
        const status = HttpApiSchema.getStatusErrorAST(m)
        const later = own.slice(i + 1).filter((n) => isSpecific(n) && HttpApiSchema.getStatusErrorAST(n) === status)
        if (later.length > 0) found.push(`${group.identifier}.${endpoint.name} (${status})`)
      }
    }
  })
  return found
}

describe("error declarations", () => {
  it("every endpoint declares its own error classes before the generic ones at the same status", () => {
    expect(genericFirst(Api)).toEqual([])
  })
})
