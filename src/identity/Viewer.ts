/**
 * Who is calling a public endpoint: anonymous, or a user holding an OAuth access token with
 * scopes. Public reads never require a token; a token with `pricing:read` unmasks marketplace
 * prices.
 *
 * Endpoints that look at the caller add `.middleware(OptionalBearer)` (on the endpoint or the
 * group) and read `yield* CurrentViewer` in the handler.
 *
 * - no Authorization header            → Anonymous
 * - valid bearer token                 → User with the token's scopes
 * - invalid or expired bearer token    → 401, `WWW-Authenticate: Bearer error="invalid_token",
 *                                         resource_metadata="<BASE_URL>/.well-known/oauth-protected-resource"`
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import { Context } from "effect"
import { Unauthorized } from "../platform/http/Errors.js"

export type Viewer =
  | { readonly _tag: "Anonymous" }
  | {
    readonly _tag: "User"
    readonly userId: string
    readonly scopes: ReadonlyArray<string>
    /** The OAuth client the token was issued to. */
    readonly clientId: string | null
  }

export const anonymous: Viewer = { _tag: "Anonymous" }

export const hasScope = (viewer: Viewer, scope: string): boolean =>
  viewer._tag === "User" && viewer.scopes.includes(scope)

/** `pricing:read` unmasks buy-now, floor and aftermarket prices. */
export const PRICING_READ = "pricing:read"
export const canSeeMarketPrices = (viewer: Viewer) => hasScope(viewer, PRICING_READ)

export class CurrentViewer extends Context.Tag("app/CurrentViewer")<CurrentViewer, Viewer>() {}

export class OptionalBearer extends HttpApiMiddleware.Tag<OptionalBearer>()("OptionalBearer", {
  provides: CurrentViewer,
  failure: Unauthorized,
  security: { bearer: HttpApiSecurity.bearer }
}) {}
