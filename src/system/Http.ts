/** Handlers of the service-level endpoints (health, discovery). */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Duration, Effect } from "effect"
import { Api, API_VERSION } from "../app/Api.js"
import { AppConfig } from "../platform/Config.js"
import { DocsAnnotation, RateLimitAnnotation } from "../platform/http/ApiAnnotations.js"
import { UnauthorizedError, UnavailableError } from "../platform/http/Errors.js"
import { addResponseHeaders } from "../platform/http/ResponseHeaders.js"
import { Lifecycle } from "../platform/Lifecycle.js"
import { ApiIndex, Health } from "./Api.js"

/** Groups that are not part of the public index (operator and partner surfaces are listed elsewhere). */
const NON_PUBLIC_GROUPS = new Set(["system", "admin"])

export const buildIndex = (
  baseUrl: string,
  rateLimits: Readonly<Record<string, number>>,
  deprecations: Readonly<Record<string, unknown>> = {}
): ApiIndex => {
  const operations: Array<ApiIndex["operations"][number]> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, mergedAnnotations }) => {
      if (NON_PUBLIC_GROUPS.has(group.identifier) || group.identifier.startsWith("partner")) return
      const p = Context.getOption(mergedAnnotations, RateLimitAnnotation)
      const docs = Context.getOption(mergedAnnotations, DocsAnnotation)
      operations.push({
        operationId: `${group.identifier}.${endpoint.name}`,
        method: endpoint.method,
        path: endpoint.path,
        summary: Context.getOrElse(endpoint.annotations, OpenApi.Summary, () => null as string | null),
        group: group.identifier,
        rateLimit: p._tag === "Some"
          ? {
            limit: rateLimits[p.value.id] ?? p.value.limit,
            windowSeconds: p.value.windowSeconds,
            scope: "ip" as const,
            policy: p.value.id
          }
          : null,
        docs: docs._tag === "Some" ? `${baseUrl}${docs.value}` : null,
        deprecated: Context.getOrElse(endpoint.annotations, OpenApi.Deprecated, () => false) ||
          `${group.identifier}.${endpoint.name}` in deprecations
      })
    }
  })
  return new ApiIndex({
    name: "Domain Marketplace API",
    version: API_VERSION,
    openapi: `${baseUrl}/api/openapi.json`,
    docs: `${baseUrl}/docs`,
    authorization: {
      protectedResourceMetadata: `${baseUrl}/.well-known/oauth-protected-resource`,
      scopes: ["pricing:read"]
    },
    operations
  })
}

export const SystemHttpLive = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const lifecycle = yield* Lifecycle
    const index = buildIndex(config.baseUrl, config.rateLimits, config.deprecations)
    const challenge = `Bearer resource_metadata="${config.baseUrl}/.well-known/oauth-protected-resource"`
    return handlers
      .handle("healthz", () => Effect.succeed(new Health({ status: "ok" })))
      .handle("readyz", () =>
        lifecycle.draining()
          ? Effect.zipRight(
            addResponseHeaders({ "retry-after": "5" }),
            new UnavailableError({
              code: "shutting_down",
              message: "This instance is shutting down; send new requests elsewhere"
            })
          )
          : sql`select 1`.pipe(
            // Well inside the documented 2 s, whatever the pool's own time limits are; `disconnect`
            // so the answer does not wait for the abandoned query's cancellation.
            Effect.disconnect,
            Effect.timeout(Duration.millis(1500)),
            Effect.as(new Health({ status: "ok", checks: { database: "ok" } })),
            Effect.catchAll(() => new UnavailableError({ code: "not_ready", message: "The database is not answering" }))
          ))
      .handle("apiRoot", () =>
        HttpApp.appendPreResponseHandler((_req, res) =>
          Effect.succeed(HttpServerResponse.setHeader(res, "www-authenticate", challenge))
        ).pipe(
          Effect.zipRight(
            new UnauthorizedError({
              code: "unauthorized",
              message:
                "This is the API root. Public reads need no credentials; see /api/v1 for the index and the WWW-Authenticate header for OAuth discovery."
            })
          )
        ))
      .handle("apiIndex", () =>
        Effect.succeed(index))
  }))
