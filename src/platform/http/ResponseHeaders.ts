/**
 * Headers a handler, a rate limit or an idempotent replay adds to the response of the request
 * being served, collected in one mutable record that the server middleware applies to whatever
 * response is sent (success, typed error or defect).
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, FiberRef } from "effect"

/**
 * Headers to add to the response of the current request (set by `serverMiddleware`). Undefined
 * outside a served request: callers then fall back to `HttpApp.appendPreResponseHandler`. (A batch
 * operation sets a scratch record instead: its headers belong to no response.)
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
    return HttpApp.appendPreResponseHandler((_req, response) =>
      Effect.succeed(HttpServerResponse.setHeaders(response, extra))
    )
  })
