/**
 * Cross-cutting HTTP behaviour shared by every endpoint:
 *
 * - `X-Request-Id` on every response (a valid incoming one is echoed, else `req_<ulid>`), and the
 *   same id inside every typed error body;
 * - one structured access-log line per request (method, path, route template, status, duration,
 *   request id, client IP, user agent, trace id), and the request metrics of `/metrics` (Metrics.ts);
 * - with tracing on (Tracing.ts), the request's server span: named after the route template,
 *   child of a valid inbound `traceparent`, its trace id the access log's `trace_id`;
 * - `Deprecation` / `Sunset` / `Link` headers on operations configured as deprecated;
 * - no stack traces: unknown routes become a typed 404, defects a typed 500;
 * - schema failures of request input become the documented 400 (typed, or legacy on the two legacy
 *   endpoints) instead of HttpApi's default decode-error body.
 */
import {
  HttpApiBuilder,
  HttpApiError,
  HttpApp,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { OtelTraceFlags } from "@effect/opentelemetry/Tracer"
import { Cause, Context, Effect, FiberId, FiberRef, HashSet, Option, Tracer } from "effect"
import type { AppConfigShape, DeprecationEntry } from "./Config.js"
import { causeIsDatabaseOutage, OUTAGE_RETRY_AFTER_SECONDS } from "./DatabaseOutage.js"
import { BadRequestError, clipEcho, CurrentRequestId, LegacyBadRequestError } from "./Errors.js"
import { makeId } from "./Ids.js"
import { recordRequest, routeLabel } from "./Metrics.js"

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Paths answering with the legacy error shape (`{"error":"message"}`). */
export const LEGACY_ERROR_PATHS: ReadonlySet<string> = new Set(["/api/pricing/tld", "/api/v1/domains/available"])

const pathOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** Resolves a request to its OpenAPI operation id (`group.endpoint`), for deprecation lookups. */
export type OperationMatcher = (method: string, path: string) => string | undefined

/** Resolves a request to its route template (`/api/partner/v1/orders/{public_id}`), if any. */
export type RouteMatcher = (method: string, path: string) => string | undefined

const errorJson = (status: number, code: string, message: string, requestId: string) =>
  HttpServerResponse.unsafeJson({ error: { code, message, request_id: requestId } }, { status })

const deprecationHeaders = (d: DeprecationEntry): Record<string, string> => ({
  // RFC 9745: a Structured Field date, "@" + Unix seconds.
  deprecation: `@${Math.floor(d.deprecatedAt.getTime() / 1000)}`,
  // RFC 8594: an HTTP-date.
  sunset: d.sunsetAt.toUTCString(),
  link: `<${d.link}>; rel="deprecation"`
})

/**
 * CORS: the public surface, OAuth metadata and token endpoints are meant for browser-based
 * clients (SDKs, MCP web agents), so any origin may call them. No credentials are allowed
 * cross-origin (`*` never carries cookies), so cookie-authenticated writes stay same-origin and
 * are Origin-checked besides.
 */
const EXPOSED_HEADERS = [
  "x-request-id", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy", "retry-after",
  "idempotency-key", "idempotent-replayed", "deprecation", "sunset", "link", "location", "www-authenticate",
  "mcp-session-id", "mcp-protocol-version"
].join(", ")

const CORS_RESPONSE_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS
}

/**
 * The answer to a CORS preflight request (OPTIONS with Origin and Access-Control-Request-Method),
 * or undefined for any other request. Called by the request guard (RequestGuard.ts) before
 * routing: no endpoint declares OPTIONS.
 */
export const corsPreflight = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined =>
  request.method === "OPTIONS" && request.headers.origin !== undefined &&
    request.headers["access-control-request-method"] !== undefined
    ? Effect.succeed(
      HttpServerResponse.empty({
        status: 204,
        headers: {
          ...CORS_RESPONSE_HEADERS,
          "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE",
          "access-control-allow-headers": request.headers["access-control-request-headers"] ??
            "authorization, content-type, idempotency-key, x-request-id",
          "access-control-max-age": "600",
          vary: "Access-Control-Request-Headers"
        }
      })
    )
    : undefined

export interface AccessLogEntry {
  readonly request_id: string
  readonly method: string
  readonly path: string
  /** The route template, `unmatched` when no route knows the path (bounded, unlike `path`). */
  readonly route: string
  readonly status: number
  readonly duration_ms: number
  /** The caller's IP (X-Forwarded-For only under TRUST_PROXY, as everywhere else). */
  readonly client_ip: string
  /** Clipped to `MAX_USER_AGENT` characters; absent when the request had none. */
  readonly user_agent?: string | undefined
  /** The trace id of a valid inbound W3C `traceparent`, to correlate with the caller's traces. */
  readonly trace_id?: string | undefined
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/

export interface TraceParent {
  readonly traceId: string
  readonly spanId: string
  readonly sampled: boolean
}

/**
 * A W3C Trace Context `traceparent` header, or undefined when it is absent or invalid (version
 * ff, all-zero ids, version 00 with trailing data). The service sends no trace headers anywhere.
 */
export const traceParentOf = (header: string | undefined): TraceParent | undefined => {
  if (header === undefined || header.length > 512) return undefined
  const m = TRACEPARENT.exec(header.trim())
  if (!m || m[1] === "ff" || (m[1] === "00" && m[5] !== undefined)) return undefined
  if (/^0+$/.test(m[2]) || /^0+$/.test(m[3])) return undefined
  return { traceId: m[2], spanId: m[3], sampled: (parseInt(m[4], 16) & 1) === 1 }
}

/** The trace id of a valid `traceparent` (logged as the access log's `trace_id` when tracing is off). */
export const traceIdOf = (header: string | undefined): string | undefined => traceParentOf(header)?.traceId

/** The parent of a request's server span: the caller's span, with its sampled flag for the OTel sampler. */
const parentSpanOf = (header: string | undefined): Tracer.ExternalSpan | undefined => {
  const parent = traceParentOf(header)
  return parent === undefined ? undefined : Tracer.externalSpan({
    traceId: parent.traceId,
    spanId: parent.spanId,
    sampled: parent.sampled,
    context: Context.make(OtelTraceFlags, parent.sampled ? 1 : 0)
  })
}

/** Probes answer every few seconds: they get no span (their access-log line is enough). */
const UNTRACED_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"])

export const MAX_USER_AGENT = 200

/** The access-log line (JSON format), without its trailing newline. */
export const formatAccessLine = (e: AccessLogEntry, now: Date = new Date()): string =>
  `{"message":"request","logLevel":"INFO","timestamp":"${now.toISOString()}","annotations":${JSON.stringify(e)}}`

/**
 * Log lines are buffered and written in one chunk per event-loop turn (or when 64 KiB pile up):
 * a write per request is a system call per request (synchronous when stdout is a file). Pending
 * lines are written before the process exits.
 */
const makeLineWriter = () => {
  let buffer: Array<string> = []
  let size = 0
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (buffer.length === 0) return
    const chunk = buffer.join("")
    buffer = []
    size = 0
    process.stdout.write(chunk)
  }
  process.once("exit", flush)
  return (line: string) => {
    buffer.push(line)
    size += line.length
    if (size >= 65_536) flush()
    else if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}

/**
 * One line per request: it is the hottest log line of the service, so it skips the general
 * logger's machinery (same JSON fields as the other log lines). Disabled when LOG_LEVEL is above
 * info.
 */
const makeAccessLog = (config: AppConfigShape): ((entry: AccessLogEntry) => void) | undefined => {
  if (!["all", "trace", "debug", "info"].includes(config.logLevel.toLowerCase())) return undefined
  const write = makeLineWriter()
  if (config.logFormat === "pretty") {
    return (e) =>
      write(`[${new Date().toISOString()}] INFO ${e.method} ${e.path} ${e.status} ${e.duration_ms}ms ${e.request_id} ${e.client_ip}\n`)
  }
  return (e) => write(`${formatAccessLine(e)}\n`)
}

/**
 * The outermost middleware, applied by `HttpApiBuilder.serve`. It runs around the handled app (the
 * response is already chosen when it returns), so headers are added through a pre-response
 * handler, which the server applies to every response: success, typed error or defect.
 */
export const serverMiddleware = (config: AppConfigShape, matchOperation: OperationMatcher, matchRoute: RouteMatcher = () => undefined) => {
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
    Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>((fiber) => {
      const incoming = request.headers["x-request-id"]
      const requestId = incoming !== undefined && VALID_REQUEST_ID.test(incoming) ? incoming : makeId("req")
      const started = performance.now()

      // Mutable on purpose: `enforce` (rate limits) adds its headers here; one pre-response
      // handler applies them all to whatever response is sent.
      const headers: Record<string, string> = { "x-request-id": requestId }
      if (request.headers.origin !== undefined) Object.assign(headers, CORS_RESPONSE_HEADERS)
      if (hasDeprecations) {
        const op = matchOperation(request.method, pathOf(request.url))
        const d = op !== undefined ? config.deprecations[op] : undefined
        if (d !== undefined) Object.assign(headers, deprecationHeaders(d))
      }
      const setHeaders: HttpApp.PreResponseHandler = (_req, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers))
      const previous = fiber.getFiberRef(HttpApp.currentPreResponseHandlers)
      const handler: HttpApp.PreResponseHandler = previous._tag === "None"
        ? setHeaders
        : (req, response) => Effect.flatMap(previous.value(req, response), (r) => setHeaders(req, r))
      // Set, not `Effect.locally` twice + `appendPreResponseHandler`: this fiber serves this one
      // request and ends with it (the server forks one per request; batch dispatch does not pass
      // here), so there is nothing to restore.
      const setRefs = Effect.zipRight(
        FiberRef.set(CurrentRequestId, requestId),
        Effect.zipRight(FiberRef.set(CurrentResponseHeaders, headers), FiberRef.set(HttpApp.currentPreResponseHandlers, Option.some(handler)))
      )
      return Effect.zipRight(setRefs, Effect.onExit(app, (exit) =>
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
          accessLog({
            request_id: requestId,
            method: request.method,
            path,
            route,
            status,
            duration_ms: Math.round(seconds * 100_000) / 100,
            client_ip: clientIpOf(request, config.trustProxy),
            user_agent: userAgent === undefined ? undefined : userAgent.slice(0, MAX_USER_AGENT),
            trace_id: span !== undefined ? span.traceId : traceIdOf(request.headers.traceparent)
          })
        })))
    })
  return middleware
}

/**
 * Headers to add to the response of the current request (set by `serverMiddleware`). Undefined
 * outside a served request (e.g. a batch operation dispatched in-process, whose headers belong
 * to its own result): callers then fall back to `HttpApp.appendPreResponseHandler`.
 */
export const CurrentResponseHeaders = FiberRef.unsafeMake<Record<string, string> | undefined>(undefined)

/** Adds headers to the current request's response. */
export const addResponseHeaders = (extra: Readonly<Record<string, string>>): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    const headers = fiber.getFiberRef(CurrentResponseHeaders)
    if (headers !== undefined) {
      Object.assign(headers, extra)
      return Effect.void
    }
    return HttpApp.appendPreResponseHandler((_req, response) => Effect.succeed(HttpServerResponse.setHeaders(response, extra)))
  })

/** A schema issue message with the quoted input (`actual …`) cut to `MAX_ECHO` characters. */
export const clipIssueMessage = (message: string): string => {
  const match = /^(Expected .+?, actual )(.+)$/s.exec(message)
  if (match) return `${clipEcho(match[1], 300)}${clipEcho(match[2])}`
  return clipEcho(message, 300)
}

/**
 * The issues of a decode failure worth showing a caller: an optional field's schema is
 * `T | undefined`, so a bad value fails both members, and "Expected undefined, actual …" beside
 * the real complaint about the same field only confuses. Dropped where the path has another issue.
 */
export const meaningfulIssues = <I extends { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>(
  issues: ReadonlyArray<I>
): Array<I> => {
  const key = (i: I) => i.path.map(String).join("\u0000")
  const undefinedOnly = (i: I) => /^Expected undefined, actual /.test(i.message)
  const covered = new Set(issues.filter((i) => !undefinedOnly(i)).map(key))
  return issues.filter((i) => !(undefinedOnly(i) && covered.has(key(i))))
}

/**
 * Human summary of a schema decode failure, one clause per field:
 * `op: expected one of "register" | "renew" | "transfer" | "restore", got "foo"; tld: is missing`.
 * Quoted input is cut to `MAX_ECHO` characters, so the error never repeats a large request.
 */
export const describeDecodeError = (e: HttpApiError.HttpApiDecodeError) => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of e.issues.slice(0, 20)) {
    const key = clipEcho(issue.path.join("."))
    byPath.set(key, [...(byPath.get(key) ?? []), clipIssueMessage(issue.message)])
  }
  const clauses: Array<string> = []
  for (const [path, messages] of byPath) {
    const expected: Array<string> = []
    let actual: string | undefined
    const other: Array<string> = []
    for (const m of messages) {
      const match = /^Expected (.+), actual (.+)$/s.exec(m)
      if (match) {
        if (match[1] !== "undefined") expected.push(match[1])
        actual = match[2]
      } else {
        other.push(m)
      }
    }
    const parts = [...new Set(other)]
    if (expected.length === 1) parts.push(`expected ${expected[0]}, got ${actual}`)
    if (expected.length > 1) parts.push(`expected one of ${expected.join(" | ")}, got ${actual}`)
    clauses.push(path ? `${path}: ${parts.join(", ")}` : parts.join(", "))
  }
  return clauses.length > 0 ? clauses.join("; ") : e.message
}

/**
 * The answer to any request that needed the database while it could not be reached: 503
 * `unavailable` with `Retry-After` (legacy shape on the legacy paths).
 */
export const unavailableResponse = (request: HttpServerRequest.HttpServerRequest, requestId: string) => {
  const message = "The service cannot reach its database right now; retry shortly"
  const headers = { "retry-after": String(OUTAGE_RETRY_AFTER_SECONDS) }
  return LEGACY_ERROR_PATHS.has(pathOf(request.url))
    ? HttpServerResponse.unsafeJson({ error: message }, { status: 503, headers })
    : HttpServerResponse.unsafeJson({ error: { code: "unavailable", message, request_id: requestId } }, { status: 503, headers })
}

/** A 400 in the shape of the request's path: legacy on the legacy paths, typed elsewhere. */
const badRequestFor = (request: HttpServerRequest.HttpServerRequest, code: string, message: string, details?: unknown) =>
  LEGACY_ERROR_PATHS.has(pathOf(request.url))
    ? Effect.fail(new LegacyBadRequestError({ code, message }))
    : Effect.fail(new BadRequestError(details === undefined ? { code, message } : { code, message, details }))

/**
 * HttpApi-level middleware (inside the API, before errors are encoded):
 * - request input that fails its schema, or a body that is not valid JSON, becomes our 400
 *   (typed, or legacy on the legacy paths);
 * - an unknown route becomes a typed 404;
 * - an unreachable database (refused, timed out, connection lost; see DatabaseOutage.ts) becomes
 *   503 `unavailable` with `Retry-After`, whichever endpoint met it;
 * - any other defect (bug) becomes a typed 500 and is logged; never a stack trace.
 */
export const ApiErrorsLive = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(
    app as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>,
    (cause) =>
      Effect.gen(function*() {
        // Interrupted (the client hung up, or shutdown): not a defect, whatever the interruption
        // broke on its way out; keep only the interruption so it is logged as 499, not 500.
        if (Cause.isInterrupted(cause)) {
          return yield* Effect.failCause(Cause.interrupt(HashSet.toValues(Cause.interruptors(cause))[0] ?? FiberId.none))
        }
        const request = yield* HttpServerRequest.HttpServerRequest
        const requestId = yield* FiberRef.get(CurrentRequestId)
        if (causeIsDatabaseOutage(cause)) {
          yield* Effect.logWarning("database unavailable; answered 503").pipe(
            Effect.annotateLogs({ error: String(Cause.squash(cause)) })
          )
          return unavailableResponse(request, requestId)
        }
        // HttpApi turns an unreadable body into a defect; it is still the caller's mistake.
        const failure = Option.orElse(
          Cause.failureOption(cause),
          () => Option.filter(Cause.dieOption(cause), (d) => d instanceof HttpServerError.RequestError)
        )
        if (Option.isSome(failure)) {
          const e = failure.value
          if (e instanceof HttpApiError.HttpApiDecodeError) {
            return yield* badRequestFor(
              request,
              "validation_error",
              describeDecodeError(e),
              meaningfulIssues(e.issues).slice(0, 20).map((i) => ({ path: i.path.map((p) => (typeof p === "string" ? clipEcho(p) : p)), message: clipIssueMessage(i.message) }))
            )
          }
          if (e instanceof HttpServerError.RequestError) {
            // The body could not be read or parsed (e.g. `{not json`): the caller's mistake.
            const message = e.reason === "Decode"
              ? "The request body is not valid JSON (or does not match its declared Content-Type)"
              : "The request body could not be read"
            return yield* badRequestFor(request, "invalid_body", message)
          }
          if (e instanceof HttpServerError.RouteNotFound) {
            return errorJson(404, "not_found", `No route for ${request.method} ${clipEcho(pathOf(request.url))}`, requestId)
          }
          return yield* Effect.failCause(cause)
        }
        yield* Effect.logError("unhandled defect", cause)
        return errorJson(500, "internal_error", "Unexpected error; retry with exponential back-off", requestId)
      })
  ) as any
)

/**
 * The caller's IP: the socket peer, or — only when TRUST_PROXY names N trusted hops — the N-th
 * address from the right of `X-Forwarded-For` (each trusted proxy appends the peer it saw).
 */
export const clientIpOf = (request: HttpServerRequest.HttpServerRequest, trustProxy: number): string => {
  const socketIp = normalizeIp(Option.getOrElse(request.remoteAddress, () => "unknown"))
  if (trustProxy <= 0) return socketIp
  const xff = request.headers["x-forwarded-for"]
  if (!xff) return socketIp
  const hops = xff.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
  const pick = hops[hops.length - trustProxy] ?? hops[0]
  return pick ? normalizeIp(pick) : socketIp
}

const normalizeIp = (ip: string) => (ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip)
