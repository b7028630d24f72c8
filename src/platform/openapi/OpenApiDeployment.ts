/**
 * The parts of the OpenAPI document that depend on the deployment, not the code: `servers` is
 * BASE_URL (and `info.contact` its /docs), and the operations configured in DEPRECATIONS are `deprecated: true` (with the
 * sunset and link in the description and `x-sunset`). `OpenApiDocumentLive` serves the document
 * at /api/openapi.json with them applied; it replaces `HttpApiBuilder.middlewareOpenApi`.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect } from "effect"
import type { DeprecationEntry } from "../Config.js"

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
  return {
    ...spec,
    info: { ...spec.info, contact: { name: "API documentation of this deployment", url: `${facts.baseUrl}/docs` } },
    servers: [{ url: facts.baseUrl, description: "This deployment (BASE_URL)" }],
    paths
  }
}

const shapeOf = (template: string) => template.replace(/\{[^}]+\}/g, "{}")

/**
 * Paths that differ only by a parameter's name (`/api/domains/bulk/{op}` and
 * `/api/domains/bulk/{bulkOpId}`) are one path to OpenAPI tools. Where one of them is a closed set
 * of words (an `enum` parameter), the document lists each word as its own literal path, the
 * operation id suffixed with it (`portfolio.bulk.lock`); the URLs served are the same.
 */
export const withLiteralPaths = (spec: Json): Json => {
  const shapes = new Map<string, number>()
  for (const template of Object.keys(spec.paths ?? {})) {
    shapes.set(shapeOf(template), (shapes.get(shapeOf(template)) ?? 0) + 1)
  }
  const paths: Json = {}
  for (const [template, item] of Object.entries<Json>(spec.paths ?? {})) {
    const operations = Object.values<Json>(item)
    const closed = (shapes.get(shapeOf(template)) ?? 0) > 1
      ? operations[0]?.parameters?.find((p: Json) =>
        p.in === "path" && Array.isArray(p.schema?.enum) &&
        operations.every((op) => op.parameters?.some((q: Json) => q.in === "path" && q.name === p.name))
      )
      : undefined
    if (closed === undefined) {
      paths[template] = item
      continue
    }
    for (const word of closed.schema.enum as Array<string>) {
      const out: Json = {}
      for (const [method, op] of Object.entries<Json>(item)) {
        out[method] = {
          ...op,
          operationId: `${op.operationId}.${word}`,
          summary: `${op.summary ?? op.operationId}: ${word}`,
          parameters: op.parameters.filter((p: Json) => !(p.in === "path" && p.name === closed.name))
        }
      }
      paths[template.replace(`{${closed.name}}`, word)] = out
    }
  }
  return { ...spec, paths }
}

/** The document as served: the code's document, this deployment's facts, literal clashing paths. */
export const publishedDocument = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  facts: DeploymentFacts
): Json => withLiteralPaths(forDeployment(OpenApi.fromApi(api) as Json, facts))

/** Serves the document at /api/openapi.json with the deployment's facts applied. */
export const OpenApiDocumentLive = (facts: DeploymentFacts) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const { api } = yield* HttpApi.Api
      // Built on first request, then kept: start-up does not pay for the document (~0.3 s of CPU).
      const response = yield* Effect.cached(
        Effect.suspend(() => HttpServerResponse.json(publishedDocument(api, facts))).pipe(Effect.orDie)
      )
      yield* router.get("/api/openapi.json", response)
    })
  )
