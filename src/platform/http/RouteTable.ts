/**
 * The route table of the HTTP edge, built once from the HttpApi: which operation serves a method
 * and path, which methods a path has, and each operation's body media types and rate limit. The
 * request guard (./RequestGuard.ts), the access log and the metrics all match requests with it.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpMethod from "@effect/platform/HttpMethod"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Option } from "effect"
import { type EdgeLimit, EdgeLimitAnnotation } from "./RateLimitEdge.js"

export interface Route {
  readonly method: string
  /** The OpenAPI path template, e.g. `/api/tools/{slug}`. */
  readonly template: string
  readonly operationId: string
  /** Media types the operation's body may have; undefined when it takes no body. */
  readonly contentTypes: ReadonlyArray<string> | undefined
  /** The rate limit the guard enforces before reading anything (RateLimitEdge.ts). */
  readonly limit?: EdgeLimit | undefined
}

export interface RouteTable {
  /** The operation serving `method path` (HEAD is served by GET). */
  readonly match: (method: string, path: string) => Route | undefined
  /** The methods served at a path; empty when no operation has that path. */
  readonly allowed: (path: string) => ReadonlyArray<string>
  /** The operation id (`group.endpoint`) of `method path`, for per-operation configuration. */
  readonly operationId: (method: string, path: string) => string | undefined
  readonly routes: ReadonlyArray<Route>
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The routes of an HttpApi as its OpenAPI document lists them (template, operation id, request
 * body media types), read from the API's definition (`HttpApi.reflect`, as `OpenApi.fromApi` reads
 * it) without building the document: that costs ~0.3 s of CPU, and start-up does not need it.
 * test/platform/request-guard.test.ts checks the two agree.
 */
export const makeRouteTable = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
): RouteTable => {
  // Grouped by template in first-seen order, as the document's `paths` are.
  const byTemplate = new Map<string, Array<Route>>()
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, group, mergedAnnotations, payloads }) => {
      if (Context.get(mergedAnnotations, OpenApi.Exclude)) return
      const template = endpoint.path.replace(/:(\w+)\??/g, "{$1}")
      const routes = byTemplate.get(template) ?? []
      byTemplate.set(template, routes)
      routes.push({
        method: endpoint.method.toUpperCase(),
        template,
        operationId: Context.getOrElse(
          endpoint.annotations,
          OpenApi.Identifier,
          () => group.topLevel ? endpoint.name : `${group.identifier}.${endpoint.name}`
        ),
        contentTypes: HttpMethod.hasBody(endpoint.method) && payloads.size > 0
          ? [...payloads.keys()].map((c) => c.toLowerCase())
          : undefined,
        limit: Option.getOrUndefined(Context.getOption(mergedAnnotations, EdgeLimitAnnotation))
      })
    }
  })
  return compileRoutes([...byTemplate.values()].flat())
}

/** The route table over routes in document order. */
export const compileRoutes = (routes: ReadonlyArray<Route>): RouteTable => {
  const compiled: Array<Route & { readonly regex: RegExp }> = routes.map((r) => ({
    ...r,
    regex: new RegExp(
      `^${
        r.template
          .split("/")
          .map((seg) => (/^\{[^}]+\}$/.test(seg) ? "[^/]+" : escapeRegex(seg)))
          .join("/")
      }/?$`
    )
  }))
  // Literal segments win over parameters (`/api/tools/whois` before `/api/tools/{slug}`).
  compiled.sort((a, b) => (a.template.split("{").length - b.template.split("{").length))
  // Every request is matched (guard, access log, metrics): a literal template is one map lookup
  // instead of a scan of every route's regex (the scan gives the same answer: literal routes sort
  // first, and at most one literal template matches a path).
  const literal = new Map<string, Route>()
  for (const r of compiled) {
    if (r.template.includes("{")) continue
    for (const p of [r.template, r.template.endsWith("/") ? r.template : `${r.template}/`]) {
      const key = `${r.method} ${p}`
      if (!literal.has(key)) literal.set(key, r)
    }
  }
  const parameterised = compiled.filter((r) => r.template.includes("{"))
  const match = (method: string, path: string): Route | undefined => {
    const m = method === "HEAD" ? "GET" : method
    return literal.get(`${m} ${path}`) ?? parameterised.find((r) => r.method === m && r.regex.test(path))
  }
  return {
    routes: compiled,
    match,
    allowed: (path) => {
      const methods = new Set<string>()
      for (const r of compiled) if (r.regex.test(path)) methods.add(r.method)
      if (methods.has("GET")) methods.add("HEAD")
      return [...methods]
    },
    operationId: (method, path) => match(method, path)?.operationId
  }
}
