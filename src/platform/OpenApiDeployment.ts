/**
 * The parts of the OpenAPI document that depend on the deployment, not the code: `servers` is
 * BASE_URL, and the operations configured in DEPRECATIONS are `deprecated: true` (with the
 * sunset and link in the description and `x-sunset`). `OpenApiDocumentLive` serves the document
 * at /api/openapi.json with them applied; it replaces `HttpApiBuilder.middlewareOpenApi`.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect } from "effect"
import type { DeprecationEntry } from "./Config.js"

type Json = Record<string, any>

export interface DeploymentFacts {
  readonly baseUrl: string
  readonly deprecations: Readonly<Record<string, DeprecationEntry>>
}

export const forDeployment = (spec: Json, facts: DeploymentFacts): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    const out: Json = {}
    for (const [method, op] of Object.entries<any>(item)) {
      const d = typeof op === "object" && op !== null ? facts.deprecations[op.operationId] : undefined
      out[method] = d === undefined ? op : {
        ...op,
        deprecated: true,
        description: `${
          op.description ?? ""
        }\n\n**Deprecated** since ${d.deprecatedAt.toISOString()}; stops working at ${d.sunsetAt.toISOString()}. Migration: ${d.link}`
          .trim(),
        "x-sunset": d.sunsetAt.toISOString()
      }
    }
    paths[path] = out
  }
  return { ...spec, servers: [{ url: facts.baseUrl, description: "This deployment (BASE_URL)" }], paths }
}

/** Serves the document at /api/openapi.json with the deployment's facts applied. */
export const OpenApiDocumentLive = (facts: DeploymentFacts) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const { api } = yield* HttpApi.Api
      const response = yield* HttpServerResponse.json(forDeployment(OpenApi.fromApi(api) as Json, facts)).pipe(
        Effect.orDie
      )
      yield* router.get("/api/openapi.json", Effect.succeed(response))
    })
  )
