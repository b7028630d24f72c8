/**
 * The outermost middleware of the server, around every request:
 *
 * - `X-Request-Id` on every response (a valid incoming one is echoed, else `req_<ulid>`), and the
 *   same id inside every typed error body;
 * - one access-log line per request (AccessLog.ts) and the request metrics of `/metrics`
 *   (Metrics.ts);
 * - with tracing on (Tracing.ts), the request's server span: named after the route template,
 *   child of a valid inbound `traceparent` (TraceContext.ts);
 * - CORS response headers for cross-origin callers (Cors.ts) and `Deprecation` / `Sunset` /
 *   `Link` on operations configured as deprecated;
 * - the headers others add on the way (ResponseHeaders.ts), applied to whatever response is sent.
 *
 * Errors no endpoint declares are answered by ApiErrors.ts, inside the API.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Context, Effect, FiberRef, Option, type Tracer } from "effect"
import type { AppConfigShape, DeprecationEntry } from "../Config.js"
import { makeId } from "../Ids.js"
import { recordRequest, routeLabel } from "../observability/Metrics.js"
import { parentSpanOf, traceIdOf } from "../observability/TraceContext.js"
import { callerOf, makeAccessLog, MAX_USER_AGENT } from "./AccessLog.js"
import { clientIpOf } from "./ClientIp.js"
import { CORS_RESPONSE_HEADERS } from "./Cors.js"
import { CurrentRequestId } from "./Errors.js"
import { pathOf } from "./HttpPath.js"
import { CurrentResponseHeaders } from "./ResponseHeaders.js"

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Resolves a request to its OpenAPI operation id (`group.endpoint`), for deprecation lookups. */
export type OperationMatcher = (method: string, path: string) => string | undefined

/** Resolves a request to its route template (`/api/partner/v1/orders/{public_id}`), if any. */
export type RouteMatcher = (method: string, path: string) => string | undefined

const deprecationHeaders = (d: DeprecationEntry): Record<string, string> => ({
  // RFC 9745: a Structured Field date, "@" + Unix seconds.
  deprecation: `@${Math.floor(d.deprecatedAt.getTime() / 1000)}`,
  // RFC 8594: an HTTP-date.
  sunset: d.sunsetAt.toUTCString(),
  link: `<${d.link}>; rel="deprecation"`
})

/** Probes answer every few seconds: they get no span (their access-log line is enough). */
const UNTRACED_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"])

/**
 * The outermost middleware, applied by `HttpApiBuilder.serve`. It runs around the handled app (the
 * response is already chosen when it returns), so headers are added through a pre-response
 * handler, which the server applies to every response: success, typed error or defect.
 */
export const serverMiddleware = (
  config: AppConfigShape,
  matchOperation: OperationMatcher,
  matchRoute: RouteMatcher = () => undefined
) => {
  const hasDeprecations = Object.keys(config.deprecations).length > 0
  const accessLog = makeAccessLog(config)
  const tracing = Option.isSome(config.tracing.endpoint)
  // Written for the hot path: one fiber-runtime access instead of a generator per request.
  const middleware = (app: HttpApp.Default): HttpApp.Default =>
    Effect.withFiberRuntime((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      if (!tracing) return handle(app, request, undefined)
      const path = pathOf(request.url)
      if (UNTRACED_PATHS.has(path)) return handle(app, request, undefined)
      const template = matchRoute(request.method, path)
      const userAgent = request.headers["user-agent"]
      return Effect.useSpan(
        template === undefined ? request.method : `${request.method} ${template}`,
        {
          kind: "server",
          captureStackTrace: false,
          parent: parentSpanOf(request.headers.traceparent),
          // The path, never the URL: a query string may carry tokens (pt=, t=). No headers.
          attributes: {
            "http.request.method": request.method,
            "url.path": path,
            "http.route": template ?? "unmatched",
            "client.address": clientIpOf(request, config.trustProxy),
            ...(userAgent === undefined ? {} : { "user_agent.original": userAgent.slice(0, MAX_USER_AGENT) })
          }
        },
        (span) => Effect.withParentSpan(handle(app, request, span), span)
      )
    })

  // Called where the request is being served (inside the fiber runtime access or the span).
  const handle = (app: HttpApp.Default, request: HttpServerRequest.HttpServerRequest, span: Tracer.Span | undefined) =>
    Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>(
      (fiber) => {
        const incoming = request.headers["x-request-id"]
        const requestId = incoming !== undefined && VALID_REQUEST_ID.test(incoming) ? incoming : makeId("req")
        const started = performance.now()

        // Mutable on purpose: rate limits add their headers here; one pre-response
        // handler applies them all to whatever response is sent.
        const headers: Record<string, string> = { "x-request-id": requestId }
        if (request.headers.origin !== undefined) Object.assign(headers, CORS_RESPONSE_HEADERS)
        if (hasDeprecations) {
          const op = matchOperation(request.method, pathOf(request.url))
          const d = op !== undefined ? config.deprecations[op] : undefined
          if (d !== undefined) Object.assign(headers, deprecationHeaders(d))
        }
        const setHeaders: HttpApp.PreResponseHandler = (_req, response) =>
          Effect.succeed(HttpServerResponse.setHeaders(response, headers))
        const previous = fiber.getFiberRef(HttpApp.currentPreResponseHandlers)
        const handler: HttpApp.PreResponseHandler = previous._tag === "None"
          ? setHeaders
          : (req, response) => Effect.flatMap(previous.value(req, response), (r) => setHeaders(req, r))
        // Set, not `Effect.locally` twice + `appendPreResponseHandler`: this fiber serves this one
        // request and ends with it (the server forks one per request), so there is nothing to
        // restore.
        const setRefs = Effect.zipRight(
          FiberRef.set(CurrentRequestId, requestId),
          Effect.zipRight(
            FiberRef.set(CurrentResponseHeaders, headers),
            FiberRef.set(HttpApp.currentPreResponseHandlers, Option.some(handler))
          )
        )
        return Effect.zipRight(
          setRefs,
          Effect.onExit(app, (exit) =>
            Effect.sync(() => {
              const path = pathOf(request.url)
              const route = routeLabel(matchRoute(request.method, path), path)
              // A client that hung up mid-request is 499 (client closed request), never an error:
              // whatever else the interruption caused (a query cut short) is its consequence.
              const status = exit._tag === "Success" ? exit.value.status : Cause.isInterrupted(exit.cause) ? 499 : 500
              const seconds = (performance.now() - started) / 1000
              recordRequest(request.method, route, status, seconds)
              if (span !== undefined) {
                span.attribute("http.response.status_code", status)
                span.attribute("http.request_id", requestId)
                if (status >= 500) span.attribute("error.type", String(status))
              }
              if (accessLog === undefined) return
              const userAgent = request.headers["user-agent"]
              const caller = callerOf(request)
              accessLog({
                request_id: requestId,
                method: request.method,
                path,
                route,
                status,
                duration_ms: Math.round(seconds * 100_000) / 100,
                client_ip: clientIpOf(request, config.trustProxy),
                user_agent: userAgent === undefined ? undefined : userAgent.slice(0, MAX_USER_AGENT),
                trace_id: span !== undefined ? span.traceId : traceIdOf(request.headers.traceparent),
                partner_id: caller?.partner_id,
                key_id: caller?.key_id
              })
            }))
        )
      }
    )
  return middleware
}
