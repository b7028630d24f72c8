/**
 * The request bodies of the OAuth endpoints, read by their handlers rather than decoded by
 * HttpApi: a malformed body must be answered in OAuth's own error shape (`invalid_request`,
 * `invalid_client_metadata`), which the framework's decode failure (our typed 400) is not.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { clipEcho } from "../../platform/http/Errors.js"
import { OAuthError } from "./OAuth.js"

const invalidRequest = (description: string) => new OAuthError({ error: "invalid_request", description })

/**
 * The parameters of a form-encoded or JSON request body as a flat string record. Repeated
 * parameters and non-string JSON values are `invalid_request` (RFC 6749 §3.1).
 */
export const readParams = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const contentType = (request.headers["content-type"] ?? "").toLowerCase()
    const text = yield* Effect.orElseSucceed(request.text, () => undefined)
    if (text === undefined) return yield* invalidRequest("Unreadable request body")
    const out: Record<string, string> = {}
    if (contentType.includes("application/x-www-form-urlencoded")) {
      for (const [k, v] of new URLSearchParams(text)) {
        if (k in out) return yield* invalidRequest(`Parameter ${clipEcho(k)} is repeated`)
        out[k] = v
      }
      return out
    }
    if (contentType.includes("application/json")) {
      const parsed: unknown = yield* Effect.try({
        try: () => JSON.parse(text),
        catch: () => invalidRequest("The body is not valid JSON")
      })
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return yield* invalidRequest("The JSON body must be an object")
      }
      for (const [k, v] of Object.entries(parsed)) {
        if (v === null || v === undefined) continue
        if (typeof v !== "string") return yield* invalidRequest(`Parameter ${clipEcho(k)} must be a string`)
        out[k] = v
      }
      return out
    }
    return yield* invalidRequest("Send the parameters as application/x-www-form-urlencoded (or application/json)")
  })

/** The client metadata document of a registration (RFC 7591 §3.1): any JSON, checked by the service. */
export const readClientMetadata = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const text = yield* Effect.orElseSucceed(request.text, () => "")
    return yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: () =>
        new OAuthError({
          error: "invalid_client_metadata",
          description: "The body must be a JSON object of client metadata"
        })
    })
  })
