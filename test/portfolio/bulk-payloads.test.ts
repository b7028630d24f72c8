/**
 * Each bulk op's payload (src/portfolio/BulkPayloads.ts): decoded by its op's schema into a typed
 * command, and every shape shown in the OpenAPI document with nothing that would not resolve there.
 */
import { OpenApi } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Api } from "../../src/app/Api.js"
import { BULK_OPS } from "../../src/domain/BulkRules.js"
import { commandOf } from "../../src/portfolio/BulkPayloads.js"

describe("bulk payloads", () => {
  it("decode by the op into a command; defaults filled, unknown fields and wrong shapes refused", () => {
    expect(Either.getOrThrow(commandOf("renew", undefined))).toEqual({ op: "renew", payload: { years: 1 } })
    expect(Either.getOrThrow(commandOf("setFolder", { folder: null }))).toEqual({
      op: "setFolder",
      payload: { folder: null }
    })
    expect(Either.isLeft(commandOf("lock", { years: 2 }))).toBe(true)
    expect(Either.isLeft(commandOf("setNameservers", { nameservers: ["ns1.example.net"] }))).toBe(true)
    expect(Either.isLeft(commandOf("renew", { years: 11 }))).toBe(true)
    expect(Either.isLeft(commandOf("setAutoRenew", {}))).toBe(true)
  })

  it("every op's shape is in the OpenAPI document, with its limits and no local $refs", () => {
    const spec = OpenApi.fromApi(Api) as any
    const body = spec.paths["/api/domains/bulk/{op}"].post.requestBody.content["application/json"].schema
    const request = body.$ref ? spec.components.schemas[body.$ref.split("/").pop()] : body
    const shapes: Array<any> = request.properties.payload.anyOf
    expect(shapes.map((s) => s.title)).toEqual([...BULK_OPS])
    const byOp = Object.fromEntries(shapes.map((s) => [s.title, s]))
    expect(byOp.setNameservers.properties.nameservers).toMatchObject({ minItems: 2, maxItems: 13 })
    expect(byOp.setAutoRenew.required).toEqual(["autoRenew"])
    expect(byOp.lock.additionalProperties).toBe(false)
    expect(JSON.stringify(shapes)).not.toContain("$defs")
  })
})
