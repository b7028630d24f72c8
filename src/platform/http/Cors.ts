/**
 * CORS: the public surface, OAuth metadata and token endpoints are meant for browser-based
 * clients (SDKs, MCP web agents), so any origin may call them. No credentials are allowed
 * cross-origin (`*` never carries cookies), so cookie-authenticated writes stay same-origin and
 * are Origin-checked besides.
 *
 * Written by hand rather than with `HttpMiddleware.cors`: the preflight is answered by the request
 * guard before routing (no endpoint declares OPTIONS), and the response headers join the one
 * header record the server middleware sets per request, instead of a further middleware layer
 * on every request (bench/pricing.ts, pricing ÷ minimal HttpApi).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"

const EXPOSED_HEADERS = [
  "x-request-id",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "ratelimit-policy",
  "retry-after",
  "idempotency-key",
  "idempotent-replayed",
  "deprecation",
  "sunset",
  "link",
  "location",
  "www-authenticate",
  "mcp-session-id",
  "mcp-protocol-version"
].join(", ")

export const CORS_RESPONSE_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS
}

/**
 * The answer to a CORS preflight request (OPTIONS with Origin and Access-Control-Request-Method),
 * or undefined for any other request. Called by the request guard (RequestGuard.ts) before
 * routing: no endpoint declares OPTIONS.
 */
export const corsPreflight = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined =>
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
