/**
 * Rate limits at the edge: an endpoint's `rateLimited(policy)` annotation (ApiAnnotations.ts) is
 * enforced by the request guard (RequestGuard.ts) as soon as the route is known, before the body
 * is read or the input decoded. So bad input counts like any other request, a refused caller
 * costs one counter check, and no handler calls the limiter. Every door keys the count the same
 * way: the caller's IP through the trusted proxies (ClientIp.ts).
 *
 * A refusal is the 429 `rate_limited` envelope with `Retry-After` and the RateLimit-* headers;
 * an endpoint whose callers expect another shape (an HTML page, OAuth's `{error}`) names its own
 * answer with `rateLimited(policy, { refusal })`. Two limits are not the edge's: sign-in (per IP,
 * then per account) and WHOIS (a signed-in caller counts per account) need what only their
 * services know, so they are declared `rateLimited(policy, { enforcedBy: "service" })`.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect } from "effect"
import { typedResponse } from "./ApiErrors.js"
import { clientIpOf } from "./ClientIp.js"
import type { RateLimitedError } from "./Errors.js"
import { enforceWith, type RateLimiterShape, type RateLimitPolicy } from "./RateLimit.js"

/** The answer to a refused request, when it is not the typed 429 envelope. */
export type Refusal = (
  request: HttpServerRequest.HttpServerRequest,
  error: RateLimitedError
) => Effect.Effect<HttpServerResponse.HttpServerResponse>

/** What the edge enforces for an endpoint (read from its annotations by `makeRouteTable`). */
export interface EdgeLimit {
  readonly policy: RateLimitPolicy
  readonly refusal: Refusal | undefined
}

/** The policy the edge enforces for an endpoint; absent when the endpoint's service does. */
export class EdgeLimitAnnotation extends Context.Tag("app/EdgeLimitAnnotation")<EdgeLimitAnnotation, EdgeLimit>() {}

export interface Admission {
  readonly limiter: RateLimiterShape
  /** TRUST_PROXY: how many proxy hops name the caller's IP. */
  readonly trustProxy: number
}

/** `retry_after` of a refusal's details, in seconds (60 when it cannot be read). */
export const retryAfterOf = (error: RateLimitedError): number => {
  const n = (error.details as { readonly retry_after?: unknown } | undefined)?.retry_after
  return typeof n === "number" && n > 0 ? n : 60
}

/**
 * Counts the request against the endpoint's policy: `undefined` when admitted (the RateLimit-*
 * headers are added to the response to come), else the refusal to send.
 */
export const admit = (
  admission: Admission,
  limit: EdgeLimit,
  request: HttpServerRequest.HttpServerRequest,
  requestId: string
): Effect.Effect<HttpServerResponse.HttpServerResponse | undefined> =>
  Effect.matchEffect(enforceWith(admission.limiter, limit.policy, clientIpOf(request, admission.trustProxy)), {
    onSuccess: () => Effect.void as Effect.Effect<undefined>,
    onFailure: (error) =>
      limit.refusal !== undefined
        ? limit.refusal(request, error)
        : Effect.succeed(typedResponse({
          error: { code: error.code, message: error.message, request_id: requestId, details: error.details }
        }, { status: 429 }))
  })
