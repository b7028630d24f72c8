/**
 * A typed client of the TestServer in scope, derived from the service's own `Api`
 * (`HttpApiClient.make`): requests are built from the endpoints' schemas, successes come back
 * decoded by their success schemas, and typed errors as their error classes. What the wire must
 * look like byte for byte (headers, legacy shapes, status lines) stays with `./http.js`.
 *
 *   const client = yield* apiClient()
 *   const page = yield* client.market.listListings({ urlParams: { sort: "price_asc" } })
 *   const error = yield* Effect.flip(client.market.getListing({ path: { domain: "x.com" } }))
 *   expect(error).toBeInstanceOf(ListingNotFound)
 *
 * Bearer tokens: `apiClient({ bearer })`. Partner API: `apiClient({ partner: cred })` signs every
 * request with the partner client kit's `withPartnerSigning`, as a partner's code would.
 */
import { FetchHttpClient, HttpApiClient, HttpApiSchema, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, type Schema } from "effect"
import { Api } from "../../src/app/Api.js"
import { withPartnerSigning } from "../../src/partner-client/index.js"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import * as Errors from "../../src/platform/http/Errors.js"
import { InvalidCursor } from "../../src/platform/http/PageCursor.js"
import { TestServer } from "./TestServer.js"

export interface ApiClientOptions {
  /** Sent as `Authorization: Bearer …` on every request. */
  readonly bearer?: string
  /** Signs every request with this partner credential (X-Service-* headers). */
  readonly partner?: IssuedCredential
  /** Extra headers on every request. */
  readonly headers?: Record<string, string>
}

export const apiClient = (options: ApiClientOptions = {}) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer
    return yield* HttpApiClient.make(Api, {
      // The base URL is prepended here rather than through `baseUrl`: HttpApiClient applies its
      // `baseUrl` after `transformClient`, and the partner signature covers the absolute URL.
      transformClient: (client) => {
        let c = HttpClient.mapRequest(client, HttpClientRequest.prependUrl(baseUrl))
        if (options.headers) c = HttpClient.mapRequest(c, HttpClientRequest.setHeaders(options.headers))
        if (options.bearer !== undefined) c = HttpClient.mapRequest(c, HttpClientRequest.bearerToken(options.bearer))
        if (options.partner) {
          c = withPartnerSigning({ keyId: options.partner.key_id, secret: options.partner.secret })(c)
        }
        return c
      }
    })
  }).pipe(Effect.provide(FetchHttpClient.layer))

export type ApiClient = Effect.Effect.Success<ReturnType<typeof apiClient>>

/** The generic error classes (any code) and their wire schemas, as platform/http/Errors.ts declares them. */
export const GENERIC_ERRORS: ReadonlyArray<
  readonly [abstract new(...args: ReadonlyArray<any>) => unknown, Schema.Schema.All]
> = [
  [Errors.BadRequestError, Errors.BadRequest],
  [Errors.UnauthorizedError, Errors.Unauthorized],
  [Errors.ForbiddenError, Errors.Forbidden],
  [Errors.NotFoundError, Errors.NotFound],
  [Errors.ConflictError, Errors.Conflict],
  [Errors.UnprocessableError, Errors.Unprocessable],
  [Errors.RateLimitedError, Errors.RateLimited],
  [Errors.InternalServerError, Errors.InternalError],
  [Errors.UnavailableError, Errors.Unavailable]
]

/**
 * The HTTP status and wire `code` a typed error of the client stands for: a domain error's class
 * metadata (`DomainError`), or a generic class's status with its `code` field. Classes that share
 * a status and a code (`ListingHeld` and `DomainNotAvailable`: 409 `conflict`) look the same on
 * the wire, and the client decodes them to the endpoint's first declared one; assert this (and
 * the message), not the class, for those.
 */
export const wireOf = (error: unknown): { readonly status: number; readonly code: string } => {
  // The one cursor refusal carries its list's code (platform/http/PageCursor.ts), always at 400.
  if (error instanceof InvalidCursor) return { status: 400, code: error.code }
  const meta = (error as { constructor?: { meta?: Errors.DomainErrorMeta } })?.constructor?.meta
  if (meta !== undefined) return { status: meta.status, code: meta.code }
  const generic = GENERIC_ERRORS.find(([cls]) => error instanceof cls)
  if (generic !== undefined) {
    return { status: HttpApiSchema.getStatusError(generic[1]), code: (error as { code: string }).code }
  }
  throw new Error(`not a typed error of the Api: ${String(error)}`)
}

/**
 * Runs a typed call that must fail with a declared error of this status and wire code (what
 * `expectError` of PartnerKit asserts of a raw reply), and returns the error.
 */
export const expectFailure = <A, E, R>(call: Effect.Effect<A, E, R>, status: number, code: string) =>
  Effect.matchEffect(call, {
    onSuccess: (a) => Effect.dieMessage(`expected ${status} ${code}, got a success: ${JSON.stringify(a)}`),
    onFailure: (e) => {
      const wire = wireOf(e)
      return wire.status === status && wire.code === code
        ? Effect.succeed(e)
        : Effect.dieMessage(`expected ${status} ${code}, got ${wire.status} ${wire.code}: ${String(e)}`)
    }
  })
