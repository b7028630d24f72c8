/**
 * `/mcp`: MCP over Streamable HTTP, stateless. Each POST gets its own protocol server and
 * transport (the SDK's Web-standard transport), so any replica serves any request.
 *
 * - Auth: no Authorization header → anonymous; a valid bearer token (bound to `<BASE_URL>/mcp` or
 *   unbound) → the token's user; anything else → 401 with the `WWW-Authenticate` challenge whose
 *   `resource_metadata` is `/.well-known/oauth-protected-resource/mcp` (what MCP clients follow).
 * - Sessions: the `initialize` answer carries an `Mcp-Session-Id` (random, never stored); it only
 *   scopes `notifications/cancelled`, which may arrive on another request than the call it
 *   cancels. A call is also cancelled when its client goes away.
 * - GET (server-initiated stream) and DELETE (session end) are 405: there is no server state.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, FiberRef, Option, Redacted, Schema, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { API_VERSION } from "../app/Api.js"
import { makeOptionalBearer } from "../identity/Bearer.js"
import { OAuth } from "../identity/oauth/OAuth.js"
import { AppConfig } from "../platform/Config.js"
import { clientIpOf } from "../platform/http/ClientIp.js"
import { CurrentRequestId, Unauthorized } from "../platform/http/Errors.js"
import { schemaResponse } from "../platform/http/SchemaResponse.js"
import { loadDocs } from "./Docs.js"
import type { ToolServices } from "./Tools.js"

export const MCP_PATH = "/mcp"
const SESSION_HEADER = "mcp-session-id"
const VALID_SESSION = /^mcp_[0-9a-f-]{36}$/
/** Tool arguments are a domain or a TLD: 1 MiB is plenty. */
const MAX_BODY_BYTES = 1_048_576

/** A JSON-RPC 2.0 error response to a request whose id is unknown (the transport's own refusals). */
const JsonRpcError = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  error: Schema.Struct({ code: Schema.Number, message: Schema.String }),
  id: Schema.Null
})
/** GET and DELETE: there is no server state to stream from or end. */
const notAllowed = HttpServerResponse.empty({ status: 405, headers: { allow: "POST" } })
/** A body over MAX_BODY_BYTES: a JSON-RPC error object, as the transport answers its own refusals. */
const tooLarge = schemaResponse(JsonRpcError)(
  {
    jsonrpc: "2.0",
    error: { code: -32600, message: `The request body exceeds ${MAX_BODY_BYTES} bytes` },
    id: null
  },
  { status: 413 }
)
const SSE_OPEN = new TextEncoder().encode(": open\n\n")
/** What the transport reads of a request (never credentials). */
const FORWARDED = new Set(["accept", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"])

/** In-flight tool calls of this process by `<session>|<JSON-RPC id>`, for `notifications/cancelled`. */
const makeCancellations = () => {
  const inFlight = new Map<string, AbortController>()
  return {
    register: (session: string | undefined, requestId: string | number, own: AbortSignal) => {
      if (session === undefined) return { signal: own, release: () => {} }
      const key = `${session}|${String(requestId)}`
      const controller = new AbortController()
      inFlight.set(key, controller)
      return {
        signal: AbortSignal.any([own, controller.signal]),
        release: () => {
          if (inFlight.get(key) === controller) inFlight.delete(key)
        }
      }
    },
    cancel: (session: string, requestId: unknown) => {
      if (typeof requestId !== "string" && typeof requestId !== "number") return
      inFlight.get(`${session}|${String(requestId)}`)?.abort()
    }
  }
}

const messagesOf = (body: unknown): ReadonlyArray<{ method?: unknown; params?: { requestId?: unknown } }> =>
  Array.isArray(body) ? body : typeof body === "object" && body !== null ? [body] : []

/** The request's `Mcp-Session-Id` when it is one this service could have issued. */
const sessionOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const incoming = request.headers[SESSION_HEADER]
  return incoming !== undefined && VALID_SESSION.test(incoming) ? incoming : undefined
}

/** The `notifications/cancelled` of a POST cancel the session's calls they name (maybe on another request). */
const cancelNotified = (
  cancellations: ReturnType<typeof makeCancellations>,
  session: string,
  messages: ReturnType<typeof messagesOf>
) => {
  for (const m of messages) {
    if (m.method === "notifications/cancelled") {
      cancellations.cancel(session, m.params?.requestId)
    }
  }
}

/** The POST as the SDK's transport reads it: its body, and of its headers only the FORWARDED ones. */
const webRequestOf = (url: string, request: HttpServerRequest.HttpServerRequest, body: string): Request => {
  const headers = new Headers()
  for (const [k, v] of Object.entries(request.headers)) if (FORWARDED.has(k)) headers.set(k, v)
  return new Request(url, { method: "POST", headers, body })
}

/**
 * The transport's response headers to send on (the platform sets the content type and length),
 * with the session id `issued` on a successful `initialize`.
 */
const responseHeadersOf = (response: Response, issued: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  response.headers.forEach((v, k) => {
    if (k !== "content-type" && k !== "content-length") headers[k] = v
  })
  if (issued !== undefined && response.status === 200) headers[SESSION_HEADER] = issued
  return headers
}

/**
 * The transport's response body, streamed; `close` (closing the protocol server) runs when it
 * ends. The SSE stream ends when the calls of this POST are answered; if the client goes away
 * first, closing the server aborts them (and their upstream work). An SSE comment first sends the
 * headers at once, not with the first event (which, for a search, waits for the queried name's
 * answer).
 */
const streamed = (
  status: number,
  headers: Record<string, string>,
  contentType: string | undefined,
  body: ReadableStream<Uint8Array>,
  close: Effect.Effect<void>
): HttpServerResponse.HttpServerResponse => {
  const events = Stream.fromReadableStream(() => body, (e) => e)
  const sse = contentType?.startsWith("text/event-stream") === true
  return HttpServerResponse.stream(
    (sse ? Stream.concat(Stream.make(SSE_OPEN), events) : events).pipe(Stream.ensuring(close)),
    { status, headers, ...(contentType !== undefined ? { contentType } : {}) }
  )
}

export const McpRouteLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const oauth = yield* OAuth
    const runtime = yield* Effect.runtime<ToolServices>()
    const docs = loadDocs()
    const cancellations = makeCancellations()
    // The SDK and zod under it are ~8 MB of an idle process (bench/results/memory.md) that most
    // deployments never use: they load with the first /mcp request.
    const sdk = yield* Effect.cached(Effect.promise(() =>
      Promise.all([import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"), import("./Protocol.js")])
    ))
    const bearer = yield* makeOptionalBearer((token, requestUrl) =>
      Effect.orDie(oauth.resolveAccessToken(token, requestUrl))
    )

    const handle = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (request.method !== "POST") {
        return notAllowed
      }
      const viewer = yield* bearer.bearer(Redacted.make(""))
      const read = yield* Effect.either(HttpIncomingMessage.withMaxBodySize(request.text, Option.some(MAX_BODY_BYTES)))
      if (read._tag === "Left") {
        return tooLarge
      }
      const text = read.right
      // Not JSON: left to the transport, which answers the JSON-RPC parse error.
      const parsed = Either.getOrUndefined(Either.try((): unknown =>
        JSON.parse(text)
      ))
      const session = sessionOf(request)
      const messages = messagesOf(parsed)
      if (session !== undefined) cancelNotified(cancellations, session, messages)
      const issued = messages.some((m) => m.method === "initialize")
        ? `mcp_${randomUUID()}`
        : undefined

      const [{ WebStandardStreamableHTTPServerTransport }, { makeProtocolServer }] = yield* sdk
      const server = makeProtocolServer(runtime, {
        version: API_VERSION,
        baseUrl: config.baseUrl,
        docs,
        caller: {
          viewer,
          ip: clientIpOf(request, config.trustProxy),
          requestId: yield* FiberRef.get(CurrentRequestId)
        },
        signalFor: (id, own) => cancellations.register(session, id, own)
      })
      const transport = new WebStandardStreamableHTTPServerTransport({}) // no sessionIdGenerator: stateless
      const close = Effect.promise(() => server.close().catch(() => undefined))
      yield* Effect.promise(() => server.connect(transport))
      const web = webRequestOf(`${config.baseUrl}${MCP_PATH}`, request, text)
      const response = yield* Effect.promise(() => transport.handleRequest(web, { parsedBody: parsed })).pipe(
        Effect.onInterrupt(() => close)
      )
      const responseHeaders = responseHeadersOf(response, issued)
      const contentType = response.headers.get("content-type") ?? undefined
      if (response.body === null) {
        yield* close
        return HttpServerResponse.empty({ status: response.status, headers: responseHeaders })
      }
      return streamed(response.status, responseHeaders, contentType, response.body, close)
    }).pipe(
      Effect.catchTag("Unauthorized", (e) =>
        // The challenge header was added by the bearer check; the body is the typed envelope.
        Effect.orDie(HttpServerResponse.schemaJson(Unauthorized)(e, { status: 401 })))
    )

    yield* router.all(MCP_PATH, handle)
  })
)
