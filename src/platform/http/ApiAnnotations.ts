/**
 * Endpoint annotations shared by OpenAPI and the machine-readable index at /api/v1:
 * the rate-limit policy an endpoint enforces, and its documentation page; and the shapes of the
 * server-rendered HTML pages (OAuth, checkout, brokerage progress).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Schema } from "effect"
import type { RateLimitPolicy } from "./RateLimit.js"
import { EdgeLimitAnnotation, type Refusal } from "./RateLimitEdge.js"

export class RateLimitAnnotation
  extends Context.Tag("app/RateLimitAnnotation")<RateLimitAnnotation, RateLimitPolicy>()
{}
export class DocsAnnotation extends Context.Tag("app/DocsAnnotation")<DocsAnnotation, string>() {}

/**
 * An annotation of endpoints: it gives back the endpoint it was given, every type parameter kept
 * (as `annotate` does), so a `.pipe(rateLimited(p))` still types its handler.
 */
export type EndpointAnnotation = <N extends string, M extends HttpMethod, P, U, B, H, S, E, R, RE>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<N, M, P, U, B, H, S, E, R, RE>
) => HttpApiEndpoint.HttpApiEndpoint<N, M, P, U, B, H, S, E, R, RE>

/**
 * Declares the policy (for docs and the index, with `x-rate-limit` in the OpenAPI operation) and
 * has the request guard enforce it before the input is read (RateLimitEdge.ts), answering a
 * refusal with `refusal` when given, else the typed 429. `enforcedBy: "service"`: documented
 * only, the endpoint's service counts (sign-in, WHOIS).
 */
export const rateLimited = (
  p: RateLimitPolicy,
  options: { readonly refusal?: Refusal; readonly enforcedBy?: "edge" | "service" } = {}
): EndpointAnnotation =>
(endpoint) => {
  const documented = endpoint
    .annotate(RateLimitAnnotation, p)
    .annotate(OpenApi.Override, {
      "x-rate-limit": { id: p.id, limit: p.limit, window_seconds: p.windowSeconds, scope: "ip" }
    })
  return options.enforcedBy === "service"
    ? documented
    : documented.annotate(EdgeLimitAnnotation, { policy: p, refusal: options.refusal })
}

export const documentedAt = (docsPath: string): EndpointAnnotation => (endpoint) =>
  endpoint.annotate(DocsAnnotation, docsPath)

/** An HTML answer of a server-rendered page (platform/http/Html.ts), with its status. */
export const HtmlPage = (status: number, description: string) =>
  HttpApiSchema.Text({ contentType: "text/html" }).annotations({
    description,
    ...HttpApiSchema.annotations({ status })
  })

/** A form post's 303 See Other in OpenAPI (the handler answers it with the `location`). */
export const Redirect = (description: string) =>
  Schema.Void.annotations({ description, ...HttpApiSchema.annotations({ status: 303 }) })

/**
 * A page's 400 in OpenAPI: an HTML error page (what a browser gets), or the typed JSON 400 when
 * the query string or form could not be decoded at all.
 */
export const htmlErrorPages = (description: string) =>
  OpenApi.annotations({
    transform: (op: any) => ({
      ...op,
      responses: {
        ...op.responses,
        "400": {
          description,
          content: {
            "text/html": { schema: { type: "string" } },
            "application/json": { schema: { $ref: "#/components/schemas/BadRequest" } }
          }
        }
      }
    })
  })
