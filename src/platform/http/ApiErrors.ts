/**
 * Errors that no endpoint declares, answered in the documented envelope: request input that fails
 * its schema (400), an unknown route (404), the database out of reach (503), a defect (500).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, FiberId, FiberRef, HashSet, Option } from "effect"
import { causeIsDatabaseOutage, OUTAGE_RETRY_AFTER_SECONDS } from "../db/DatabaseOutage.js"
import { validationFailure } from "./DecodeErrors.js"
import {
  BadRequestError,
  clipEcho,
  CurrentRequestId,
  ErrorEnvelope,
  LegacyBadRequestError,
  LegacyErrorEnvelope
} from "./Errors.js"
import { notFoundPageResponse, wantsHtml } from "./Html.js"
import { pathOf } from "./HttpPath.js"
import { IDEMPOTENCY_KEY_HEADER, keyRefusal } from "./IdempotencyKey.js"
import { schemaResponse } from "./SchemaResponse.js"

/** Paths answering with the legacy error shape (`{"error":"message"}`). */
export const LEGACY_ERROR_PATHS: ReadonlySet<string> = new Set(["/api/pricing/tld", "/api/v1/domains/available"])

/** A typed error answer, `{"error":{code,message,request_id,details?}}`, for routes outside the HttpApi too. */
export const typedResponse = schemaResponse(ErrorEnvelope)
/** A legacy error answer, `{"error":"message"}` (the paths of LEGACY_ERROR_PATHS). */
export const legacyResponse = schemaResponse(LegacyErrorEnvelope)

const errorJson = (status: number, code: string, message: string, requestId: string) =>
  typedResponse({ error: { code, message, request_id: requestId } }, { status })

const UNAVAILABLE_MESSAGE = "The service cannot reach its database right now; retry shortly"
const INTERNAL_MESSAGE = "Unexpected error; retry with exponential back-off"

/** The body of the 503 `unavailable` answer (legacy shape on the legacy paths). */
export const unavailableBody = (legacy: boolean, requestId: string): ErrorEnvelope | LegacyErrorEnvelope =>
  legacy
    ? { error: UNAVAILABLE_MESSAGE }
    : { error: { code: "unavailable", message: UNAVAILABLE_MESSAGE, request_id: requestId } }

/** The body of the 500 `internal_error` answer. */
export const internalErrorBody = (requestId: string): ErrorEnvelope => ({
  error: { code: "internal_error", message: INTERNAL_MESSAGE, request_id: requestId }
})

/**
 * The answer to any request that needed the database while it could not be reached: 503
 * `unavailable` with `Retry-After` (legacy shape on the legacy paths).
 */
export const unavailableResponse = (request: HttpServerRequest.HttpServerRequest, requestId: string) => {
  const options = { status: 503, headers: { "retry-after": String(OUTAGE_RETRY_AFTER_SECONDS) } }
  return LEGACY_ERROR_PATHS.has(pathOf(request.url))
    ? legacyResponse({ error: UNAVAILABLE_MESSAGE }, options)
    : typedResponse({ error: { code: "unavailable", message: UNAVAILABLE_MESSAGE, request_id: requestId } }, options)
}

/** A 400 in the shape of the request's path: legacy on the legacy paths, typed elsewhere. */
/**
 * HttpApi reports a success value that fails its own schema with the same `HttpApiDecodeError`
 * as bad input: the route encodes through `Schema.Union` of `transformOrFail(<response
 * declaration>, success)`, so the failure's tree starts at that declaration. That is OUR answer
 * failing (a bug, or data the schema cannot carry), never the caller's mistake.
 */
export const isResponseEncodingFailure = (e: HttpApiError.HttpApiDecodeError): boolean =>
  e.message.startsWith("(<declaration schema> <-> ")

const badRequestFor = (
  request: HttpServerRequest.HttpServerRequest,
  code: string,
  message: string,
  details?: unknown
) =>
  LEGACY_ERROR_PATHS.has(pathOf(request.url))
    ? Effect.fail(new LegacyBadRequestError({ code, message }))
    : Effect.fail(new BadRequestError(details === undefined ? { code, message } : { code, message, details }))

/**
 * HttpApi-level middleware (inside the API, before errors are encoded):
 * - request input that fails its schema, or a body that is not valid JSON, becomes our 400
 *   (typed, or legacy on the legacy paths); a bad Idempotency-Key header, the answer its
 *   operation documents (./IdempotencyKey.ts);
 * - an unknown route becomes a typed 404;
 * - an unreachable database (refused, timed out, connection lost; see DatabaseOutage.ts) becomes
 *   503 `unavailable` with `Retry-After`, whichever endpoint met it;
 * - a success value that fails its own schema (isResponseEncodingFailure) is a 500 logged as an
 *   error (an alert), never a 400;
 * - any other defect (bug) becomes a typed 500 and is logged; never a stack trace.
 * The failures it passes on are the API's own errors, which HttpApi encodes after this middleware;
 * `MiddlewareFn<never>` cannot say so, hence the `HttpApp.Default` at the end.
 */
export const ApiErrorsLive = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(
    app as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>,
    (cause) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const requestId = yield* FiberRef.get(CurrentRequestId)
        if (causeIsDatabaseOutage(cause)) {
          yield* Effect.logWarning("database unavailable; answered 503").pipe(
            Effect.annotateLogs({ error: String(Cause.squash(cause)) })
          )
          return unavailableResponse(request, requestId)
        }
        // Interrupted (the client hung up, or shutdown): not a defect, whatever the interruption
        // broke on its way out; keep only the interruption so it is logged as 499, not 500.
        // Checked after the outage: a lost database also interrupts the siblings of the query
        // that met it (a concurrent load), and that answer is the 503 above.
        if (Cause.isInterrupted(cause)) {
          return yield* Effect.failCause(
            Cause.interrupt(HashSet.toValues(Cause.interruptors(cause))[0] ?? FiberId.none)
          )
        }
        // HttpApi turns an unreadable body into a defect; it is still the caller's mistake.
        const failure = Option.orElse(
          Cause.failureOption(cause),
          () => Option.filter(Cause.dieOption(cause), (d) => d instanceof HttpServerError.RequestError)
        )
        if (Option.isSome(failure)) {
          const e = failure.value
          if (e instanceof HttpApiError.HttpApiDecodeError && isResponseEncodingFailure(e)) {
            // An alert: the answer could not be encoded (e.g. a total beyond its schema).
            yield* Effect.logError("response encoding failed; answered 500").pipe(
              Effect.annotateLogs({ alert: "response_encoding", issues: JSON.stringify(e.issues).slice(0, 2000) })
            )
            return typedResponse(internalErrorBody(requestId), { status: 500 })
          }
          if (e instanceof HttpApiError.HttpApiDecodeError) {
            // A malformed or missing Idempotency-Key: the operation's own documented answer.
            const refused = keyRefusal(request.method, pathOf(request.url), request.headers[IDEMPOTENCY_KEY_HEADER], e)
            if (refused !== undefined) return yield* Effect.fail(refused)
            const { details, message } = validationFailure(e)
            return yield* badRequestFor(request, "validation_error", message, details)
          }
          if (e instanceof HttpServerError.RequestError) {
            // The body could not be read or parsed (e.g. `{not json`): the caller's mistake.
            const message = e.reason === "Decode"
              ? "The request body is not valid JSON (or does not match its declared Content-Type)"
              : "The request body could not be read"
            return yield* badRequestFor(request, "invalid_body", message)
          }
          if (e instanceof HttpServerError.RouteNotFound) {
            if (request.method === "GET" && wantsHtml(request.headers["accept"])) {
              return notFoundPageResponse()
            }
            return errorJson(
              404,
              "not_found",
              `No route for ${request.method} ${clipEcho(pathOf(request.url))}`,
              requestId
            )
          }
          return yield* Effect.failCause(cause)
        }
        yield* Effect.logError("unhandled defect", cause)
        return typedResponse(internalErrorBody(requestId), { status: 500 })
      })
  ) as HttpApp.Default
)
