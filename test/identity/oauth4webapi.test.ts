/**
 * The whole OAuth flow driven by oauth4webapi, a strict third-party client: discovery of both
 * metadata documents, dynamic registration, authorization (signing in through the HTML form like
 * a browser), code exchange with PKCE, a call with the token, refresh rotation, reuse detection,
 * revocation. oauth4webapi checks issuer, iss, state, token response shape and WWW-Authenticate
 * syntax itself; a deviation from the standards fails here.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as oauth from "oauth4webapi"
import { createTestUser } from "../support/identity.js"
import { serverAtBaseUrl } from "../support/identity.js"
import { TestServer } from "../support/TestServer.js"

const insecure = { [oauth.allowInsecureRequests]: true } as const // the test server is plain http on loopback
const REDIRECT = "http://127.0.0.1:9/callback"

/** What a browser does on the authorization page: sign in through the form, then allow. */
const browserApproves = async (authorizationUrl: URL, user: { email: string; password: string }, origin: string) => {
  const page = await fetch(authorizationUrl, { redirect: "manual" })
  const signIn = await page.text()
  expect(page.status).toBe(200)
  const action = /<form method="post" action="([^"]+)"/.exec(signIn)![1].replace(/&amp;/g, "&")
  const login = await fetch(new URL(action, origin), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ action: "login", email: user.email, password: user.password })
  })
  expect(login.status).toBe(303)
  const cookie = login.headers.getSetCookie()[0].split(";")[0]
  const consentUrl = new URL(login.headers.get("location")!, origin)
  const consent = await (await fetch(consentUrl, { headers: { cookie } })).text()
  const csrf = /name="csrf" value="([^"]+)"/.exec(consent)![1]
  const approve = await fetch(consentUrl, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin, cookie },
    body: new URLSearchParams({ action: "approve", csrf })
  })
  expect(approve.status).toBe(303)
  return new URL(approve.headers.get("location")!)
}

layer(serverAtBaseUrl(), { timeout: 120_000 })("oauth4webapi end to end", (it) => {
  it.effect("discovery, registration, authorize, code exchange, a call with the token, refresh rotation, reuse detection, revocation", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestServer
      const user = yield* createTestUser()
      yield* Effect.promise(async () => {
        // 1. Protected resource metadata (RFC 9728) names the authorization server.
        const resource = new URL(baseUrl)
        const rs = await oauth.processResourceDiscoveryResponse(
          resource,
          await oauth.resourceDiscoveryRequest(resource, insecure)
        )
        expect(rs.authorization_servers).toEqual([baseUrl])
        const mcpResource = new URL(`${baseUrl}/mcp`)
        const mcp = await oauth.processResourceDiscoveryResponse(
          mcpResource,
          await oauth.resourceDiscoveryRequest(mcpResource, insecure)
        )
        expect(mcp.authorization_servers).toEqual([baseUrl])

        // 2. Authorization server metadata (RFC 8414); the issuer is checked against the URL.
        const issuer = new URL(rs.authorization_servers![0])
        const as = await oauth.processDiscoveryResponse(
          issuer,
          await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure })
        )
        expect(as.code_challenge_methods_supported).toEqual(["S256"])

        // 3. Dynamic client registration (RFC 7591).
        const registered = await oauth.processDynamicClientRegistrationResponse(
          await oauth.dynamicClientRegistrationRequest(as, {
            redirect_uris: [REDIRECT],
            client_name: "oauth4webapi",
            token_endpoint_auth_method: "none"
          }, insecure)
        )
        const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: "none" }
        expect(registered.client_secret).toBeUndefined()

        // 4. Authorization request with PKCE S256, state and an RFC 8707 resource.
        const verifier = oauth.generateRandomCodeVerifier()
        const state = oauth.generateRandomState()
        const authorizationUrl = new URL(as.authorization_endpoint!)
        authorizationUrl.search = new URLSearchParams({
          response_type: "code",
          client_id: client.client_id,
          redirect_uri: REDIRECT,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: "S256",
          scope: "pricing:read",
          state,
          resource: rs.resource
        }).toString()
        const callback = await browserApproves(authorizationUrl, user, baseUrl)

        // 5. The callback: iss and state are validated by the client.
        const params = oauth.validateAuthResponse(as, client, callback, state)

        // 6. Code exchange.
        const tokens = await oauth.processAuthorizationCodeResponse(
          as,
          client,
          await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
            additionalParameters: { resource: rs.resource },
            ...insecure
          })
        )
        expect(tokens.token_type).toBe("bearer") // oauth4webapi lowercases it
        expect(tokens.scope).toBe("pricing:read")
        expect(tokens.expires_in).toBe(1800)

        // 7. A call with the token.
        const listings = await oauth.protectedResourceRequest(
          tokens.access_token,
          "GET",
          new URL(`${baseUrl}/api/market/listings?limit=1`),
          undefined,
          undefined,
          insecure
        )
        expect(listings.status).toBe(200)

        // 8. Refresh rotation.
        const refreshed = await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure)
        )
        expect(refreshed.refresh_token).toBeDefined()
        expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)

        // 9. Reusing the spent refresh token is an invalid_grant and revokes the grant.
        const reuse = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure)
        const reuseError = await oauth.processRefreshTokenResponse(as, client, reuse).then(() => undefined, (e) => e)
        expect(reuseError).toBeInstanceOf(oauth.ResponseBodyError)
        expect(reuseError.error).toBe("invalid_grant")

        // 10. Revoked tokens: the resource answers a Bearer invalid_token challenge oauth4webapi can parse.
        const rejected = await oauth.protectedResourceRequest(
          refreshed.access_token,
          "GET",
          new URL(`${baseUrl}/api/market/listings?limit=1`),
          undefined,
          undefined,
          insecure
        )
          .then(() => undefined, (e) => e)
        expect(rejected).toBeInstanceOf(oauth.WWWAuthenticateChallengeError)
        const challenge = (rejected as oauth.WWWAuthenticateChallengeError).cause[0]
        expect(challenge.scheme).toBe("bearer")
        expect(challenge.parameters.error).toBe("invalid_token")
        expect(challenge.parameters.resource_metadata).toBe(`${baseUrl}/.well-known/oauth-protected-resource`)
      })
    }))

  it.effect("revocation through oauth4webapi (RFC 7009)", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestServer
      const user = yield* createTestUser()
      yield* Effect.promise(async () => {
        const issuer = new URL(baseUrl)
        const as = await oauth.processDiscoveryResponse(
          issuer,
          await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure })
        )
        const registered = await oauth.processDynamicClientRegistrationResponse(
          await oauth.dynamicClientRegistrationRequest(as, {
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: "none"
          }, insecure)
        )
        const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: "none" }
        const verifier = oauth.generateRandomCodeVerifier()
        const url = new URL(as.authorization_endpoint!)
        url.search = new URLSearchParams({
          response_type: "code",
          client_id: client.client_id,
          redirect_uri: REDIRECT,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: "S256"
        }).toString()
        const callback = await browserApproves(url, user, baseUrl)
        const params = oauth.validateAuthResponse(as, client, callback, oauth.expectNoState)
        const tokens = await oauth.processAuthorizationCodeResponse(
          as,
          client,
          await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure)
        )
        expect(tokens.scope).toBe("pricing:read") // the default scope
        await oauth.processRevocationResponse(
          await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, insecure)
        )
        const after = await oauth.protectedResourceRequest(
          tokens.access_token,
          "GET",
          new URL(`${baseUrl}/api/market/listings?limit=1`),
          undefined,
          undefined,
          insecure
        )
          .then((r) => r.status, (e) => e.status)
        expect(after).toBe(401)
      })
    }))
})
