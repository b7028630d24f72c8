/**
 * Request hygiene in front of every endpoint, from one route table built once from the HttpApi:
 *
 * - a known path with a method it does not serve → 405 `method_not_allowed` with `Allow`;
 * - a body over `MAX_BODY_BYTES` → 413 `payload_too_large`, on Content-Length and while streaming
 *   (the body is read here once; `request.text` is cached, so the payload decodes from it and the
 *   signed Partner API hashes the same bytes — never a second read of a consumed stream);
 * - an operation with a body sent a content type it does not accept (even with the body empty) → 415 `unsupported_media_type`;
 * - JSON nested deeper than `MAX_JSON_DEPTH` → 400 `invalid_body`;
 * - U+0000 in any string (path, query, JSON or form body) → 400 `validation_error`: PostgreSQL
 *   text cannot hold it, and no identifier or name of this service contains one;
 * - a declared body not received whole within `REQUEST_BODY_TIMEOUT` → 408 `request_timeout`, and
 *   the connection is closed (a slow sender holds nothing longer than that);
 * - a handler that runs longer than `REQUEST_TIMEOUT` → 503 `request_timeout` with `Retry-After`;
 * - a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method) → 204 (Cors.ts).
 *
 * Errors use the shape of the path: OAuth's `{error, error_description}` on the OAuth endpoints,
 * the legacy `{error}` on the two legacy paths, the typed envelope elsewhere.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Context, Duration, Effect, Fiber, FiberRef, Layer, Option, Predicate, Schema } from "effect"
import type { IncomingMessage } from "node:http"
import type { AppConfigShape } from "../Config.js"
import { awaitWithin } from "../outbound/Deadline.js"
import { LEGACY_ERROR_PATHS, legacyResponse, typedResponse } from "./ApiErrors.js"
import { corsPreflight } from "./Cors.js"
import { CurrentRequestId } from "./Errors.js"
import { pathOf } from "./HttpPath.js"
import { RateLimiter } from "./RateLimit.js"
import { type Admission, admit } from "./RateLimitEdge.js"
import type { Route, RouteTable } from "./RouteTable.js"
import { schemaResponse } from "./SchemaResponse.js"

/** JSON deeper than this is refused before any decoding (no endpoint takes more than a few levels). */
export const MAX_JSON_DEPTH = 32

// ---------------------------------------------------------------------------
// Body inspection

export type BodyProblem = "too_deep" | "nul"

/**
 * One pass over JSON text: nesting depth outside strings, and `\u0000` escapes inside them (a raw
 * NUL byte is not valid JSON and fails parsing anyway).
 */
export const inspectJson = (text: string, maxDepth = MAX_JSON_DEPTH): BodyProblem | undefined => {
  let depth = 0
  let inString = false
  let nul = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) {
        if (text.charCodeAt(i + 1) === 117 /* u */ && /^[0]{4}$/.test(text.slice(i + 2, i + 6))) nul = true
        i++
      } else if (c === 34 /* " */) {
        inString = false
      }
    } else if (c === 34) {
      inString = true
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > maxDepth) return "too_deep"
    } else if (c === 125 || c === 93) {
      depth--
    }
  }
  return nul ? "nul" : undefined
}

const NUL_IN_URL = /%00/

const mediaTypeOf = (contentType: string | undefined) =>
  contentType === undefined ? undefined : contentType.split(";")[0]!.trim().toLowerCase()

const isOAuthPath = (path: string) => path.startsWith("/api/oauth/")

/** The OAuth 2.0 error body (RFC 6749 section 5.2), as identity/oauth/Api.ts documents it. */
const OAuthErrorBody = Schema.Struct({ error: Schema.String, error_description: Schema.String })
const oauthResponse = schemaResponse(OAuthErrorBody)

/** An error response in the shape the path documents. */
export const shapedError = (
  path: string,
  status: number,
  code: string,
  message: string,
  requestId: string,
  headers: Record<string, string> = {}
) => {
  if (isOAuthPath(path)) {
    // OAuth clients understand its registered codes: a malformed or mistyped request is
    // invalid_request (status 400 or 415); other statuses keep the service's code.
    const error = status === 400 || status === 415 ? "invalid_request" : code
    return oauthResponse({ error, error_description: message }, {
      status,
      headers: { "cache-control": "no-store", ...headers }
    })
  }
  if (LEGACY_ERROR_PATHS.has(path)) return legacyResponse({ error: message }, { status, headers })
  return typedResponse({ error: { code, message, request_id: requestId } }, { status, headers })
}

const hasBody = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  if (length !== undefined) return Number(length) > 0
  return request.headers["transfer-encoding"] !== undefined
}

type BodyRead =
  | { readonly _tag: "Read"; readonly text: string }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Unreadable" }
  | { readonly _tag: "TimedOut" }

/** After refusing an over-long body, at most this much more is read (and dropped) before the connection is cut. */
const DRAIN_FACTOR = 4

/**
 * Reads the body once, up to `max` bytes within `withinMs` (0: no limit), and leaves it as the
 * request's cached text. Past the limit the rest is read and dropped (up to a bound, then the
 * connection is cut) so the 413 reaches the client instead of a connection reset.
 */
const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  max: number,
  withinMs: number
): Effect.Effect<BodyRead> => {
  const source: IncomingMessage | undefined = NodeHttpServerRequest.toIncomingMessage(request)
  if (source === undefined || typeof source.on !== "function") {
    const read = request.text.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(max)),
      Effect.map((text): BodyRead => ({ _tag: "Read", text })),
      Effect.catchAll((e) =>
        Effect.succeed<BodyRead>(
          String((Predicate.hasProperty(e.cause, "message") ? e.cause.message : undefined) ?? "").includes("maxBytes")
            ? { _tag: "TooLarge" }
            : { _tag: "Unreadable" }
        )
      )
    )
    return withinMs === 0 ? read : Effect.timeoutTo(read, {
      duration: Duration.millis(withinMs),
      onSuccess: (r) => r,
      onTimeout: (): BodyRead => ({ _tag: "TimedOut" })
    })
  }
  return Effect.async<BodyRead>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    // A sender that declared a body and stops sending it (slowloris) is answered at the deadline.
    const timer = withinMs === 0 ? undefined : setTimeout(() => {
      cleanup()
      chunks.length = 0
      resume(Effect.succeed({ _tag: "TimedOut" }))
    }, withinMs)
    const cleanup = () => {
      clearTimeout(timer)
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("aborted", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= max) {
        chunks.push(chunk)
        return
      }
      cleanup()
      chunks.length = 0
      let dropped = 0
      source.on("data", (c: Buffer) => {
        dropped += c.length
        if (dropped > max * DRAIN_FACTOR) source.socket?.destroy()
      })
      resume(Effect.succeed({ _tag: "TooLarge" }))
    }
    const onEnd = () => {
      cleanup()
      const text = Buffer.concat(chunks).toString("utf8") // The platform request caches its text here: the payload decoder and the signature check
       // read this, never the (consumed) stream.
      ;(request as any).textEffect = Effect.succeed(text) // seam: platform-node's IncomingMessage caches its text in a private field
      resume(Effect.succeed({ _tag: "Read", text }))
    }
    const onError = () => {
      cleanup()
      resume(Effect.succeed({ _tag: "Unreadable" }))
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    source.once("aborted", onError)
    return Effect.sync(cleanup)
  })
}

export interface GuardSettings {
  readonly maxBodyBytes: number
  readonly requestTimeout: Duration.Duration
  /** 0: no limit. */
  readonly bodyTimeout: Duration.Duration
  /** TRUST_PROXY, for the caller's IP that rate limits count. */
  readonly trustProxy: number
}

export const guardSettings = (config: AppConfigShape): GuardSettings => ({
  maxBodyBytes: config.http.maxBodyBytes,
  requestTimeout: config.http.requestTimeout,
  bodyTimeout: config.http.bodyTimeout,
  trustProxy: config.trustProxy
})

/**
 * The child's pre-response handlers (headers and cookies its handler added), made the current
 * fiber's: the one FiberRef a handler changes for what follows it (see `runWithin`).
 */
const inheritResponseHandlers = (child: Fiber.RuntimeFiber<unknown, unknown>): Effect.Effect<void> =>
  Effect.withFiberRuntime((parent) => {
    const handlers = child.getFiberRef(HttpApp.currentPreResponseHandlers)
    return handlers === parent.getFiberRef(HttpApp.currentPreResponseHandlers)
      ? Effect.void
      : FiberRef.set(HttpApp.currentPreResponseHandlers, handlers)
  })

/** The settings as the guard's steps read them, the durations in milliseconds (once per layer build). */
interface GuardLimits {
  readonly settings: GuardSettings
  readonly timeoutMs: number
  readonly bodyTimeoutMs: number
}

/** A refusal in the shape the request's path documents (see `shapedError`). */
type Refuse = (status: number, code: string, message: string, headers?: Record<string, string>) => HttpApp.Default

/** The 405 of a known path asked with a method it does not serve, with the methods it does in `Allow`. */
const methodNotAllowed = (method: string, path: string, allowed: ReadonlyArray<string>, requestId: string) => {
  const allow = allowed.join(", ")
  const message = `${method} is not allowed on ${path.slice(0, 100)}; use ${allow}`
  return Effect.succeed(shapedError(path, 405, "method_not_allowed", message, requestId, { allow }))
}

/**
 * The guard's checks of a routed request that its rate limit admitted (URL, content type,
 * declared length, then the body read once), then the handler within the request timeout.
 */
const checked = (
  app: HttpApp.Default,
  request: HttpServerRequest.HttpServerRequest,
  route: Route,
  path: string,
  requestId: string,
  limits: GuardLimits
): HttpApp.Default => {
  const settings = limits.settings
  const fail: Refuse = (status, code, message, headers) =>
    Effect.succeed(shapedError(path, status, code, message, requestId, headers))
  if (NUL_IN_URL.test(request.url)) {
    return fail(400, "validation_error", "The URL contains U+0000 (%00), which no parameter accepts")
  }

  // The declared type is checked even for an empty body: the payload decoder trusts it (an
  // empty multipart body would otherwise wait for parts until the request timed out).
  const media = mediaTypeOf(request.headers["content-type"])
  if (route.contentTypes !== undefined && media !== undefined && !route.contentTypes.includes(media)) {
    return fail(415, "unsupported_media_type", `Send the body as ${route.contentTypes.join(" or ")}`)
  }

  const run = runWithin(app, path, requestId, limits.timeoutMs)
  if (!hasBody(request)) return run
  const declared = Number(request.headers["content-length"])
  if (Number.isFinite(declared) && declared > settings.maxBodyBytes) {
    return fail(413, "payload_too_large", `The request body exceeds ${settings.maxBodyBytes} bytes`)
  }
  // Read once, bounded; every later reader (signature, payload) gets this cached text.
  return Effect.flatMap(
    readBody(request, settings.maxBodyBytes, limits.bodyTimeoutMs),
    (read) => bodyRefusal(read, media, settings, fail) ?? run
  )
}

/**
 * The refusal a read body earns (not received in time or whole, too large, JSON too deep, U+0000
 * in a JSON or form body), or `undefined` when the handler may run.
 */
const bodyRefusal = (
  read: BodyRead,
  media: string | undefined,
  settings: GuardSettings,
  fail: Refuse
): HttpApp.Default | undefined => {
  if (read._tag === "TimedOut") {
    // `connection: close`: Node closes the socket once this answer is sent, dropping the rest.
    return fail(
      408,
      "request_timeout",
      `The request body did not arrive within ${Duration.format(settings.bodyTimeout)}`,
      { connection: "close" }
    )
  }
  if (read._tag === "TooLarge") {
    return fail(413, "payload_too_large", `The request body exceeds ${settings.maxBodyBytes} bytes`)
  }
  if (read._tag === "Unreadable") {
    return fail(400, "invalid_body", "The request body could not be read")
  }
  if (media === undefined || media === "application/json") {
    const problem = inspectJson(read.text)
    if (problem === "too_deep") {
      return fail(400, "invalid_body", `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`)
    }
    if (problem === "nul") {
      return fail(400, "validation_error", "A string in the body contains U+0000, which no field accepts")
    }
  } else if (
    media === "application/x-www-form-urlencoded" && (read.text.includes("\u0000") || NUL_IN_URL.test(read.text))
  ) {
    return fail(400, "validation_error", "A parameter in the body contains U+0000, which no parameter accepts")
  }
  return undefined
}

/**
 * The handler, in its own fiber so it can be cut off after `timeoutMs` without waiting for it
 * (work that cannot be interrupted at once finishes in the background); on completion its
 * pre-response handlers (headers, cookies) are carried back, as if it had run here. A client that
 * hangs up interrupts it too.
 */
const runWithin = (app: HttpApp.Default, path: string, requestId: string, timeoutMs: number): HttpApp.Default =>
  Effect.flatMap(Effect.forkDaemon(app), (fiber) =>
    Effect.flatMap(
      Effect.onInterrupt(Effect.interruptible(awaitWithin(fiber, timeoutMs)), () => Fiber.interruptFork(fiber)),
      (exit) => {
        if (Option.isNone(exit)) {
          const message = "The request took too long to handle; retry shortly"
          const timedOut = shapedError(path, 503, "request_timeout", message, requestId, { "retry-after": "1" })
          return Effect.as(Fiber.interruptFork(fiber), timedOut)
        }
        // Only the pre-response handlers come back (what a handler changes for the response:
        // headers, cookies). `Fiber.inheritAll` joined every FiberRef, diffing the whole
        // service context per request.
        return Effect.zipRight(inheritResponseHandlers(fiber), exit.value)
      }
    ))

/**
 * The guard, as an HttpApp middleware around the API's router: its answers go out like any
 * handler's (with `X-Request-Id` and the other response headers). It also answers CORS preflight
 * requests (before routing: no endpoint declares OPTIONS).
 *
 * Hot path (every request): no generator, the route matched once (RouteTable memoises it per
 * request for the access log), the handler forked once.
 */
export const requestGuard = (settings: GuardSettings, routes: RouteTable, admission: Admission) => {
  const limits: GuardLimits = {
    settings,
    timeoutMs: Duration.toMillis(settings.requestTimeout),
    bodyTimeoutMs: Duration.toMillis(settings.bodyTimeout)
  }
  return (app: HttpApp.Default): HttpApp.Default =>
    Effect.withFiberRuntime((current) => {
      const request = Context.unsafeGet(current.currentContext, HttpServerRequest.HttpServerRequest)
      if (request.method === "OPTIONS") return corsPreflight(request) ?? app
      const path = pathOf(request.url)
      const requestId = current.getFiberRef(CurrentRequestId)
      const route = routes.match(request.method, path)
      if (route === undefined) {
        const allowed = routes.allowed(path)
        return allowed.length > 0 ? methodNotAllowed(request.method, path, allowed, requestId) : app
      }

      // The endpoint's rate limit, before anything is read: bad input counts like any request.
      const limit = route.limit
      if (limit !== undefined) {
        return Effect.flatMap(
          admit(admission, limit, request, requestId),
          (refused) =>
            refused !== undefined ? Effect.succeed(refused) : checked(app, request, route, path, requestId, limits)
        )
      }
      return checked(app, request, route, path, requestId, limits)
    })
}

/** The guard as an API middleware layer (see `requestGuard`); it counts rate limits with the service's limiter. */
export const RequestGuardLive = (settings: GuardSettings, routes: RouteTable) =>
  Layer.unwrapEffect(Effect.map(RateLimiter, (limiter) => {
    const guard = requestGuard(settings, routes, { limiter, trustProxy: settings.trustProxy })
    return HttpApiBuilder.middleware((app) => guard(app as HttpApp.Default))
  }))
