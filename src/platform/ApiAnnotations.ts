/**
 * Endpoint annotations shared by OpenAPI and the machine-readable index at /api/v1:
 * the rate-limit policy an endpoint enforces, and its documentation page.
 */
import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { Context } from "effect"
import type { RateLimitPolicy } from "./RateLimit.js"

export class RateLimitAnnotation extends Context.Tag("app/RateLimitAnnotation")<RateLimitAnnotation, RateLimitPolicy>() {}
export class DocsAnnotation extends Context.Tag("app/DocsAnnotation")<DocsAnnotation, string>() {}

/** Declares the policy (for docs and the index) and adds `x-rate-limit` to the OpenAPI operation. */
export const rateLimited = (p: RateLimitPolicy) =>
<E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E): E =>
  (endpoint as any)
    .annotate(RateLimitAnnotation, p)
    .annotate(OpenApi.Override, { "x-rate-limit": { id: p.id, limit: p.limit, window_seconds: p.windowSeconds, scope: "ip" } })

export const documentedAt = (docsPath: string) =>
<E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E): E => (endpoint as any).annotate(DocsAnnotation, docsPath)
