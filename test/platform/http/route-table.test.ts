/**
 * The request guard's route table (src/platform/http/RouteTable.ts) is read from the API's definition
 * without building the OpenAPI document; it must list exactly what the document lists, in the
 * same order (the order decides between parameterised templates).
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { describe, expect, it } from "@effect/vitest"
import { Api } from "../../../src/app/Api.js"
import { makeRouteTable } from "../../../src/platform/http/RouteTable.js"

/** The routes as the OpenAPI document states them. */
const documented = () => {
  const spec = OpenApi.fromApi(Api) as any
  return Object.entries<Record<string, any>>(spec.paths).flatMap(([template, operations]) =>
    Object.entries<any>(operations).flatMap(([method, op]) =>
      typeof op?.operationId === "string"
        ? [{
          method: method.toUpperCase(),
          template,
          operationId: op.operationId as string,
          contentTypes: op.requestBody?.content === undefined
            ? undefined
            : Object.keys(op.requestBody.content).map((c) => c.toLowerCase())
        }]
        : []
    )
  )
}

describe("the route table", () => {
  it("lists every documented operation with its template, operation id and body media types", () => {
    const table = makeRouteTable(Api)
    const stable = <A extends { template: string }>(rs: ReadonlyArray<A>) =>
      [...rs].sort((a, b) => a.template.split("{").length - b.template.split("{").length)
    const ours = table.routes.map(({ contentTypes, method, operationId, template }) => ({
      method,
      template,
      operationId,
      contentTypes
    }))
    expect(ours).toEqual(stable(documented()))
    expect(ours.length).toBeGreaterThan(100)
  })

  it("matches literal paths before parameterised ones, HEAD as GET, a trailing slash alike", () => {
    const table = makeRouteTable(Api)
    expect(table.match("GET", "/api/pricing/tld")?.operationId).toBe(
      table.match("HEAD", "/api/pricing/tld/")?.operationId
    )
    expect(table.match("GET", "/nowhere")).toBeUndefined()
  })
})
