/**
 * The OptionalBearer middleware: resolves `Authorization: Bearer <token>` to a Viewer.
 * (Token storage and issuance live in the OAuth server, src/identity/oauth; this file only
 * checks tokens.)
 *
 * A token bound to a resource (RFC 8707) is accepted only on that resource and below it, e.g. a
 * token for `<BASE_URL>/mcp` on `/mcp` but not on `/api/...`; an unbound token, or one bound to
 * `<BASE_URL>`, is valid on the whole service.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer } from "effect"
import { AppConfig } from "../platform/Config.js"
import { ForbiddenError, UnauthorizedError } from "../platform/http/Errors.js"
import { OAuth } from "./oauth/OAuth.js"
import { anonymous, CurrentViewer, hasScope, OptionalBearer, type Viewer } from "./Viewer.js"

/**
 * Looks a presented access token up; undefined when unknown, expired, revoked, or bound to another
 * resource than `requestUrl` (the absolute URL of the request, `<BASE_URL><path>`).
 */
export type TokenResolver = (token: string, requestUrl: string) => Effect.Effect<Viewer | undefined>

/**
 * RFC 9728 metadata URL of the protected resource a request path belongs to: the agent endpoint
 * (`/mcp`) has its own document, everything else is `<BASE_URL>`.
 */
export const resourceMetadataFor = (baseUrl: string, url: string): string => {
  const path = url.split("?")[0]
  return path === "/mcp" || path.startsWith("/mcp/")
    ? `${baseUrl}/.well-known/oauth-protected-resource/mcp`
    : `${baseUrl}/.well-known/oauth-protected-resource`
}

export const makeOptionalBearer = (resolve: TokenResolver) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const invalid = (description: string, url: string) =>
      HttpApp.appendPreResponseHandler((_req, res) =>
        Effect.succeed(
          HttpServerResponse.setHeader(
            res,
            "www-authenticate",
            `Bearer error="invalid_token", error_description="${description}", resource_metadata="${
              resourceMetadataFor(config.baseUrl, url)
            }"`
          )
        )
      ).pipe(Effect.zipRight(new UnauthorizedError({ code: "invalid_token", message: description })))

    return OptionalBearer.of({
      bearer: () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const header = request.headers.authorization
          if (header === undefined || header.trim() === "") return anonymous
          const match = /^Bearer\s+([\x21-\x7e]+)\s*$/i.exec(header)
          if (!match) return yield* invalid("The Authorization header must be: Bearer <access token>", request.url)
          const viewer = yield* resolve(match[1], `${config.baseUrl}${request.url}`)
          if (viewer === undefined) {
            return yield* invalid("The access token is invalid, expired or revoked", request.url)
          }
          return viewer
        })
    })
  })

/** Resolves tokens issued by the OAuth server (a lost database is a defect: a typed 500). */
export const OptionalBearerLive = Layer.effect(
  OptionalBearer,
  Effect.flatMap(
    OAuth,
    (oauth) => makeOptionalBearer((token, requestUrl) => Effect.orDie(oauth.resolveAccessToken(token, requestUrl)))
  )
)

/**
 * For the few operations that need a scope (none of the public reads do): anonymous → 401 with a
 * `WWW-Authenticate: Bearer resource_metadata=…` challenge; a token without the scope → 403
 * `insufficient_scope` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`.
 * Use inside a handler of an endpoint carrying the OptionalBearer middleware (declare
 * `.addError(Forbidden)`).
 */
export const requireScope = (scope: string) =>
  Effect.gen(function*() {
    const viewer = yield* CurrentViewer
    const config = yield* AppConfig
    const request = yield* HttpServerRequest.HttpServerRequest
    const metadata = resourceMetadataFor(config.baseUrl, request.url)
    const challenge = (value: string) =>
      HttpApp.appendPreResponseHandler((_req, res) =>
        Effect.succeed(HttpServerResponse.setHeader(res, "www-authenticate", value))
      )
    if (viewer._tag === "Anonymous") {
      yield* challenge(`Bearer scope="${scope}", resource_metadata="${metadata}"`)
      return yield* new UnauthorizedError({
        code: "unauthorized",
        message: `This operation needs a bearer token with scope ${scope}`
      })
    }
    if (!hasScope(viewer, scope)) {
      yield* challenge(`Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}"`)
      return yield* new ForbiddenError({
        code: "insufficient_scope",
        message: `The access token lacks the scope ${scope}`
      })
    }
    return viewer
  })

/**
 * For the parameters that reveal what a scope protects (a listing's `max` filter bisects the
 * masked buy-now price): when any of `present` is true and the caller lacks `scope` — anonymous
 * or not — 403 `insufficient_scope` with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="…"`. The operation itself stays open to everyone without those parameters.
 */
export const requireScopeForParameters = (
  scope: string,
  present: ReadonlyArray<readonly [name: string, sent: boolean]>
) =>
  Effect.gen(function*() {
    const sent = present.filter(([, isSent]) => isSent).map(([name]) => name)
    const viewer = yield* CurrentViewer
    if (sent.length === 0 || hasScope(viewer, scope)) return viewer
    const config = yield* AppConfig
    const request = yield* HttpServerRequest.HttpServerRequest
    const metadata = resourceMetadataFor(config.baseUrl, request.url)
    yield* HttpApp.appendPreResponseHandler((_req, res) =>
      Effect.succeed(
        HttpServerResponse.setHeader(
          res,
          "www-authenticate",
          `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}"`
        )
      )
    )
    return yield* new ForbiddenError({
      code: "insufficient_scope",
      message: `The parameter ${sent.join(", ")} filters on prices, which need a bearer token with scope ${scope}`,
      details: { fields: sent, scope }
    })
  })
