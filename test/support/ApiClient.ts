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
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../../src/app/Api.js"
import { withPartnerSigning } from "../../src/partner-client/index.js"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
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
