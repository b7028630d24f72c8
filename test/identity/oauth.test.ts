/**
 * The OAuth 2.1 authorization server, one rule per test, through real HTTP: discovery metadata,
 * registration, the authorize page (errors, redirects, state, iss), the token endpoint (PKCE,
 * single-use codes, refresh rotation and reuse revocation, RFC 8707 resource), revocation,
 * introspection, and the bearer check on a public endpoint.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { get, post, type Reply, request } from "../support/http.js"
import {
  authorize,
  authorizeQuery,
  createTestUser,
  obtainTokens,
  pkcePair,
  REDIRECT_URI,
  registerClient,
  serverAtBaseUrl,
  signIn,
  tokenRequest
} from "../support/identity.js"
import { inOneWindow } from "../support/RateWindow.js"
import { baseEnv, TestServer } from "../support/TestServer.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const introspect = (token: string) =>
  post("/api/oauth/introspect", new URLSearchParams({ token }).toString(), {
    authorization: `Bearer ${baseEnv.ADMIN_TOKEN}`,
    "content-type": "application/x-www-form-urlencoded"
  })

/** A public endpoint carrying the OptionalBearer middleware. */
const BEARER_PATH = "/api/market/listings?limit=1"
const withBearer = (token: string) => get(BEARER_PATH, { authorization: `Bearer ${token}` })

const expectOAuthError = (reply: Reply, status: number, error: string) => {
  expect(reply.status, reply.text).toBe(status)
  expect(reply.json, reply.text).toEqual({ error, error_description: expect.any(String) })
  expect(reply.headers.get("cache-control")).toBe("no-store")
}

/** A code for a new user and client: everything needed to exchange it. */
const freshCode = (options: { scopes?: ReadonlyArray<string>; resource?: string; state?: string } = {}) =>
  Effect.gen(function*() {
    const user = yield* createTestUser()
    const clientId = yield* registerClient()
    const cookie = yield* signIn(user)
    const { challenge, verifier } = pkcePair()
    const redirect = yield* authorize({
      clientId,
      cookie,
      challenge,
      scopes: options.scopes,
      resource: options.resource,
      state: options.state ?? "s"
    })
    return { user, clientId, cookie, verifier, challenge, redirect, code: redirect.searchParams.get("code")! }
  })

const exchange = (c: { clientId: string; code: string; verifier: string }, extra: Record<string, string> = {}) =>
  tokenRequest({
    grant_type: "authorization_code",
    client_id: c.clientId,
    code: c.code,
    redirect_uri: REDIRECT_URI,
    code_verifier: c.verifier,
    ...extra
  })

layer(serverAtBaseUrl(), { timeout: 120_000 })("OAuth authorization server", (it) => {
  describe("discovery", () => {
    it.effect("RFC 8414 metadata: issuer is exactly BASE_URL, the contract's fields", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const reply = yield* get("/.well-known/oauth-authorization-server")
        expect(reply.status).toBe(200)
        expect(reply.headers.get("content-type")).toContain("application/json")
        expect(reply.json).toEqual({
          issuer: baseUrl,
          authorization_endpoint: `${baseUrl}/oauth/authorize`,
          token_endpoint: `${baseUrl}/api/oauth/token`,
          registration_endpoint: `${baseUrl}/api/oauth/register`,
          revocation_endpoint: `${baseUrl}/api/oauth/revoke`,
          introspection_endpoint: `${baseUrl}/api/oauth/introspect`,
          response_types_supported: ["code"],
          response_modes_supported: ["query"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          revocation_endpoint_auth_methods_supported: ["none"],
          scopes_supported: ["pricing:read"],
          authorization_response_iss_parameter_supported: true,
          service_documentation: `${baseUrl}/docs`
        })
      }))

    it.effect("RFC 9728 metadata for the REST API and for /mcp", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const api = yield* get("/.well-known/oauth-protected-resource")
        expect(api.status).toBe(200)
        expect(api.json).toMatchObject({
          resource: baseUrl,
          authorization_servers: [baseUrl],
          scopes_supported: ["pricing:read"],
          bearer_methods_supported: ["header"]
        })
        const mcp = yield* get("/.well-known/oauth-protected-resource/mcp")
        expect(mcp.status).toBe(200)
        expect(mcp.json).toMatchObject({
          resource: `${baseUrl}/mcp`,
          authorization_servers: [baseUrl],
          scopes_supported: ["pricing:read"]
        })
      }))
  })

  describe("OpenAPI", () => {
    it.effect("declares the OAuth endpoints with OAuth's own error bodies, HTML pages and both token body encodings", () =>
      Effect.gen(function*() {
        const doc = (yield* get("/api/openapi.json")).json
        const token = doc.paths["/api/oauth/token"].post
        expect(Object.keys(token.requestBody.content).sort()).toEqual([
          "application/json",
          "application/x-www-form-urlencoded"
        ])
        expect(token.responses["400"].content["application/json"].schema).toEqual({
          $ref: "#/components/schemas/OAuthError"
        })
        expect(doc.components.schemas.OAuthError.required.sort()).toEqual(["error", "error_description"])
        expect(doc.paths["/api/oauth/register"].post.responses["400"].content["application/json"].schema).toEqual({
          $ref: "#/components/schemas/ClientRegistrationError"
        })
        expect(doc.paths["/api/oauth/register"].post.responses["201"]).toBeDefined()
        const authorize = doc.paths["/oauth/authorize"].get
        expect(Object.keys(authorize.responses["200"].content)).toEqual(["text/html"])
        expect(Object.keys(authorize.responses["400"].content)).toContain("text/html")
        expect(authorize.parameters.map((p: any) => p.name)).toEqual(
          expect.arrayContaining([
            "response_type",
            "client_id",
            "redirect_uri",
            "code_challenge",
            "code_challenge_method",
            "state",
            "scope",
            "resource"
          ])
        )
        for (
          const path of [
            "/.well-known/oauth-authorization-server",
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp"
          ]
        ) {
          expect(doc.paths[path].get.responses["200"], path).toBeDefined()
        }
        expect(doc.paths["/api/oauth/revoke"].post.responses["200"]).toBeDefined()
        expect(doc.paths["/api/oauth/introspect"].post.responses["401"]).toBeDefined()
      }))
  })

  describe("registration (RFC 7591)", () => {
    it.effect("201 with a client_id, no secret, token_endpoint_auth_method none", () =>
      Effect.gen(function*() {
        const reply = yield* post("/api/oauth/register", {
          redirect_uris: ["https://app.example/cb", "http://127.0.0.1:8123/cb"],
          client_name: "My agent"
        })
        expect(reply.status).toBe(201)
        expect(reply.headers.get("cache-control")).toBe("no-store")
        expect(reply.json).toEqual({
          client_id: expect.stringMatching(/^client_/),
          client_id_issued_at: expect.any(Number),
          client_name: "My agent",
          redirect_uris: ["https://app.example/cb", "http://127.0.0.1:8123/cb"],
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"]
        })
        expect(reply.json.client_secret).toBeUndefined()
      }))

    it.effect("invalid_redirect_uri: not https off loopback, a fragment, relative, missing, empty", () =>
      Effect.gen(function*() {
        for (
          const body of [
            { redirect_uris: ["http://app.example/cb"] },
            { redirect_uris: ["https://app.example/cb#frag"] },
            { redirect_uris: ["/relative"] },
            { redirect_uris: ["javascript:alert(1)"] },
            { redirect_uris: [] },
            { client_name: "no uris" },
            { redirect_uris: "https://app.example/cb" }
          ]
        ) {
          expectOAuthError(yield* post("/api/oauth/register", body), 400, "invalid_redirect_uri")
        }
      }))

    it.effect("invalid_client_metadata: confidential auth methods, other grant types, a bad body", () =>
      Effect.gen(function*() {
        const uris = ["https://app.example/cb"]
        for (
          const body of [
            { redirect_uris: uris, token_endpoint_auth_method: "client_secret_basic" },
            { redirect_uris: uris, grant_types: ["client_credentials"] },
            { redirect_uris: uris, response_types: ["token"] },
            { redirect_uris: uris, scope: "admin" },
            { redirect_uris: uris, client_name: 42 }
          ]
        ) {
          expectOAuthError(yield* post("/api/oauth/register", body), 400, "invalid_client_metadata")
        }
        expectOAuthError(
          yield* post("/api/oauth/register", "{not json", { "content-type": "application/json" }),
          400,
          "invalid_client_metadata"
        )
      }))
  })

  describe("registration as OpenAPI documents it", () => {
    /** A valid value for every field ClientRegistrationRequest documents. */
    const sample: Record<string, unknown> = {
      redirect_uris: ["https://app.example/cb"],
      client_name: "Documented client",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: "pricing:read",
      client_uri: "https://app.example/",
      logo_uri: "https://app.example/logo.png",
      tos_uri: "https://app.example/tos",
      policy_uri: "https://app.example/privacy",
      software_id: "documented-agent",
      software_version: "1.2.3"
    }

    it.effect("every documented field is accepted and echoed; every answered field is documented", () =>
      Effect.gen(function*() {
        const doc = (yield* get("/api/openapi.json")).json
        const schemas = doc.components.schemas
        expect(Object.keys(schemas.ClientRegistrationRequest.properties).sort()).toEqual(Object.keys(sample).sort())
        const reply = yield* post("/api/oauth/register", sample)
        expect(reply.status, reply.text).toBe(201)
        expect(reply.json).toEqual({
          ...sample,
          client_id: expect.stringMatching(/^client_/),
          client_id_issued_at: expect.any(Number)
        })
        const created = doc.paths["/api/oauth/register"].post.responses["201"].content["application/json"].schema
        const information = created.$ref === undefined ? created : schemas[created.$ref.split("/").pop()]
        const answered = Object.keys(information.properties)
        for (const key of Object.keys(reply.json)) expect(answered, key).toContain(key)
      }))

    it.effect("null stands for an absent optional field, as documented", () =>
      Effect.gen(function*() {
        const schemas = (yield* get("/api/openapi.json")).json.components.schemas
        const nullable = Object.entries(schemas.ClientRegistrationRequest.properties)
          .filter(([, p]: [string, any]) => JSON.stringify(p).includes("\"type\":\"null\""))
          .map(([name]) => name)
        expect(nullable.sort()).toEqual([
          "client_name",
          "client_uri",
          "grant_types",
          "logo_uri",
          "policy_uri",
          "response_types",
          "software_id",
          "software_version",
          "token_endpoint_auth_method",
          "tos_uri"
        ])
        const reply = yield* post("/api/oauth/register", {
          redirect_uris: ["https://app.example/cb"],
          ...Object.fromEntries(nullable.map((n) => [n, null]))
        })
        expect(reply.status, reply.text).toBe(201)
        expect(reply.json).toEqual({
          client_id: expect.stringMatching(/^client_/),
          client_id_issued_at: expect.any(Number),
          redirect_uris: ["https://app.example/cb"],
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"]
        })
      }))

    it.effect("the documented limits are the enforced ones", () =>
      Effect.gen(function*() {
        const props = (yield* get("/api/openapi.json")).json.components.schemas.ClientRegistrationRequest.properties
        /** The maxLength the schema of a (possibly nullable) string field documents. */
        const maxLength = (field: unknown) => Number(/"maxLength":(\d+)/.exec(JSON.stringify(field))![1])
        const maxUris: number = props.redirect_uris.maxItems
        const nameLimit = maxLength(props.client_name)
        const uris = (n: number) => Array.from({ length: n }, (_, i) => `https://app.example/cb/${i}`)
        expect((yield* post("/api/oauth/register", { redirect_uris: uris(maxUris) })).status).toBe(201)
        expectOAuthError(
          yield* post("/api/oauth/register", { redirect_uris: uris(maxUris + 1) }),
          400,
          "invalid_redirect_uri"
        )
        expect(
          (yield* post("/api/oauth/register", { redirect_uris: uris(1), client_name: "n".repeat(nameLimit) })).status
        ).toBe(201)
        expectOAuthError(
          yield* post("/api/oauth/register", { redirect_uris: uris(1), client_name: "n".repeat(nameLimit + 1) }),
          400,
          "invalid_client_metadata"
        )
        const descriptiveLimit = maxLength(props.client_uri)
        expect(
          (yield* post("/api/oauth/register", { redirect_uris: uris(1), client_uri: "u".repeat(descriptiveLimit) }))
            .status
        ).toBe(201)
        expectOAuthError(
          yield* post("/api/oauth/register", { redirect_uris: uris(1), client_uri: "u".repeat(descriptiveLimit + 1) }),
          400,
          "invalid_client_metadata"
        )
      }))
  })

  describe("authorization endpoint", () => {
    it.effect("unknown client, missing or unregistered redirect URI: an HTML error page, never a redirect", () =>
      Effect.gen(function*() {
        const clientId = yield* registerClient()
        const { challenge } = pkcePair()
        const base = { clientId, challenge, state: "x" }
        const cases = [
          `/oauth/authorize?${authorizeQuery({ ...base, clientId: "client_unknown" })}`,
          `/oauth/authorize?${authorizeQuery({ ...base, redirectUri: "http://127.0.0.1/other" })}`,
          `/oauth/authorize?${authorizeQuery({ ...base, redirectUri: "https://evil.example/callback" })}`,
          `/oauth/authorize?response_type=code&client_id=${clientId}&code_challenge=${challenge}&code_challenge_method=S256`,
          `/oauth/authorize?response_type=code`
        ]
        for (const path of cases) {
          const reply = yield* get(path)
          expect(reply.status, path).toBe(400)
          expect(reply.headers.get("location"), path).toBeNull()
          expect(reply.headers.get("content-type"), path).toContain("text/html")
          expect(reply.text, path).toContain("<h1>")
        }
        const unregistered = yield* get(cases[1])
        expect(unregistered.text).toContain("redirect URI")
      }))

    it.effect("plain PKCE, no PKCE, another response_type, an unknown scope: redirect back with the error, state and iss", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const clientId = yield* registerClient()
        const { challenge } = pkcePair()
        const q = (overrides: Record<string, string | null>) => {
          const params = new URLSearchParams(authorizeQuery({ clientId, challenge, state: "st-1" }))
          for (const [k, v] of Object.entries(overrides)) v === null ? params.delete(k) : params.set(k, v)
          return `/oauth/authorize?${params}`
        }
        const cases: Array<[string, string]> = [
          [q({ code_challenge_method: "plain", code_challenge: "a".repeat(43) }), "invalid_request"],
          [q({ code_challenge_method: null }), "invalid_request"],
          [q({ code_challenge: null }), "invalid_request"],
          [q({ code_challenge: "too-short" }), "invalid_request"],
          [q({ response_type: "token" }), "unsupported_response_type"],
          [q({ scope: "pricing:write" }), "invalid_scope"],
          [q({ resource: "https://elsewhere.example/api" }), "invalid_target"]
        ]
        for (const [path, error] of cases) {
          const reply = yield* get(path)
          expect(reply.status, path).toBe(302)
          const location = new URL(reply.headers.get("location")!)
          expect(`${location.origin}${location.pathname}`, path).toBe(REDIRECT_URI)
          expect(location.searchParams.get("error"), path).toBe(error)
          expect(location.searchParams.get("state"), path).toBe("st-1")
          expect(location.searchParams.get("iss"), path).toBe(baseUrl)
          expect(location.searchParams.get("code"), path).toBeNull()
        }
        const plain = new URL((yield* get(cases[0][0])).headers.get("location")!)
        expect(plain.searchParams.get("error_description")).toContain("S256")
      }))

    it.effect("without a session: a sign-in form naming the client; signed in: a consent screen naming client and scope", () =>
      Effect.gen(function*() {
        const clientId = yield* registerClient([REDIRECT_URI], "Price Agent <3")
        const { challenge } = pkcePair()
        const path = `/oauth/authorize?${authorizeQuery({ clientId, challenge, state: "s" })}`
        const signInPage = yield* get(path)
        expect(signInPage.status).toBe(200)
        expect(signInPage.headers.get("content-type")).toBe("text/html; charset=utf-8")
        expect(signInPage.headers.get("cache-control")).toBe("no-store")
        expect(signInPage.headers.get("x-frame-options")).toBe("DENY")
        expect(signInPage.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
        expect(signInPage.text).toContain("type=\"password\"")
        expect(signInPage.text).toContain("Price Agent &lt;3") // escaped
        expect(signInPage.text).not.toContain("Price Agent <3")

        const cookie = yield* signIn(yield* createTestUser())
        const consent = yield* get(path, { cookie })
        expect(consent.status).toBe(200)
        expect(consent.text).toContain("Authorize Price Agent &lt;3")
        expect(consent.text).toContain("pricing:read")
        expect(consent.text).toContain("value=\"approve\"")
        expect(consent.text).toContain("value=\"deny\"")
        expect(consent.text).toContain("127.0.0.1")
      }))

    it.effect("signing in through the page's form sets the session and returns to the consent screen", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const user = yield* createTestUser()
        const clientId = yield* registerClient()
        const { challenge } = pkcePair()
        const path = `/oauth/authorize?${authorizeQuery({ clientId, challenge, state: "s" })}`
        const form = (password: string) =>
          new URLSearchParams({ action: "login", email: user.email, password }).toString()
        const headers = { "content-type": "application/x-www-form-urlencoded", origin: baseUrl }
        const wrong = yield* request(path, { method: "POST", headers, body: form("nope-nope") })
        expect(wrong.status).toBe(200)
        expect(wrong.text).toContain("Wrong e-mail or password")
        expect(wrong.headers.getSetCookie()).toEqual([])
        const ok = yield* request(path, { method: "POST", headers, body: form(user.password) })
        expect(ok.status).toBe(303)
        expect(ok.headers.get("location")).toBe(path)
        const cookie = ok.headers.getSetCookie().find((c) => c.startsWith("mp_session="))!
        expect(cookie).toContain("HttpOnly")
        const consent = yield* get(path, { cookie: cookie.split(";")[0] })
        expect(consent.text).toContain("value=\"approve\"")
      }))

    it.effect("approval redirects with code, the state unchanged, and iss", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const state = "a b/c?d=é&e+f%20 ~"
        const c = yield* freshCode({ state })
        expect(`${c.redirect.origin}${c.redirect.pathname}`).toBe(REDIRECT_URI)
        expect(c.redirect.searchParams.get("state")).toBe(state)
        expect(c.redirect.searchParams.get("iss")).toBe(baseUrl)
        expect(c.code).toMatch(/^[A-Za-z0-9_-]{43}$/)
      }))

    it.effect("denial redirects with error=access_denied and the state", () =>
      Effect.gen(function*() {
        const cookie = yield* signIn(yield* createTestUser())
        const clientId = yield* registerClient()
        const { challenge } = pkcePair()
        const redirect = yield* authorize({ clientId, cookie, challenge, state: "deny-me", decision: "deny" })
        expect(redirect.searchParams.get("error")).toBe("access_denied")
        expect(redirect.searchParams.get("state")).toBe("deny-me")
        expect(redirect.searchParams.get("code")).toBeNull()
      }))

    it.effect("a consent post from another site or with a stale form token is refused, without a redirect", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const cookie = yield* signIn(yield* createTestUser())
        const clientId = yield* registerClient()
        const { challenge } = pkcePair()
        const path = `/oauth/authorize?${authorizeQuery({ clientId, challenge, state: "s" })}`
        const csrf = /name="csrf" value="([^"]+)"/.exec((yield* get(path, { cookie })).text)![1]
        const post = (origin: string, token: string) =>
          request(path, {
            method: "POST",
            headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ action: "approve", csrf: token }).toString()
          })
        const foreign = yield* post("https://evil.example", csrf)
        expect(foreign.status).toBe(403)
        expect(foreign.headers.get("location")).toBeNull()
        const stale = yield* post(baseUrl, "forged")
        expect(stale.status).toBe(403)
        expect(stale.headers.get("location")).toBeNull()
        const ok = yield* post(baseUrl, csrf)
        expect(ok.status).toBe(303)
      }))
  })

  describe("token endpoint", () => {
    it.effect("exchanges a code (form-encoded) for tokens, with Cache-Control: no-store", () =>
      Effect.gen(function*() {
        const c = yield* freshCode()
        const reply = yield* exchange(c)
        expect(reply.status, reply.text).toBe(200)
        expect(reply.headers.get("cache-control")).toBe("no-store")
        expect(reply.headers.get("pragma")).toBe("no-cache")
        expect(reply.json).toEqual({
          access_token: expect.stringMatching(/^at_[A-Za-z0-9_-]{43}$/),
          token_type: "Bearer",
          expires_in: 1800,
          refresh_token: expect.stringMatching(/^rt_[A-Za-z0-9_-]{43}$/),
          scope: "pricing:read"
        })
        expect((yield* withBearer(reply.json.access_token)).status).toBe(200)
      }))

    it.effect("accepts a JSON body too", () =>
      Effect.gen(function*() {
        const c = yield* freshCode()
        const reply = yield* post("/api/oauth/token", {
          grant_type: "authorization_code",
          client_id: c.clientId,
          code: c.code,
          redirect_uri: REDIRECT_URI,
          code_verifier: c.verifier
        })
        expect(reply.status, reply.text).toBe(200)
        expect(reply.json.token_type).toBe("Bearer")
      }))

    it.effect("a spent code is refused, and its reuse revokes the tokens issued with it", () =>
      Effect.gen(function*() {
        const c = yield* freshCode()
        const first = yield* exchange(c)
        expect(first.status).toBe(200)
        expect((yield* withBearer(first.json.access_token)).status).toBe(200)
        const replay = yield* exchange(c)
        expectOAuthError(replay, 400, "invalid_grant")
        // The first access token (and its refresh token) no longer work.
        const after = yield* withBearer(first.json.access_token)
        expect(after.status).toBe(401)
        expect((yield* introspect(first.json.access_token)).json).toEqual({ active: false })
        expectOAuthError(
          yield* tokenRequest({
            grant_type: "refresh_token",
            client_id: c.clientId,
            refresh_token: first.json.refresh_token
          }),
          400,
          "invalid_grant"
        )
      }))

    it.effect("a wrong code_verifier is invalid_grant (and the code is spent)", () =>
      Effect.gen(function*() {
        const c = yield* freshCode()
        expectOAuthError(yield* exchange({ ...c, verifier: pkcePair().verifier }), 400, "invalid_grant")
        expectOAuthError(yield* exchange(c), 400, "invalid_grant")
      }))

    it.effect("a verifier equal to the challenge (plain PKCE) is refused", () =>
      Effect.gen(function*() {
        const c = yield* freshCode()
        expectOAuthError(yield* exchange({ ...c, verifier: c.challenge }), 400, "invalid_grant")
      }))

    it.effect("missing code_verifier, another redirect_uri, another client: refused", () =>
      Effect.gen(function*() {
        const a = yield* freshCode()
        expectOAuthError(
          yield* tokenRequest({
            grant_type: "authorization_code",
            client_id: a.clientId,
            code: a.code,
            redirect_uri: REDIRECT_URI
          }),
          400,
          "invalid_request"
        )
        const b = yield* freshCode()
        expectOAuthError(yield* exchange(b, { redirect_uri: "http://127.0.0.1/other" }), 400, "invalid_grant")
        const c = yield* freshCode()
        const otherClient = yield* registerClient()
        expectOAuthError(yield* exchange({ ...c, clientId: otherClient }), 400, "invalid_grant")
      }))

    it.effect("grant types and client identification: unsupported_grant_type, invalid_request, invalid_client", () =>
      Effect.gen(function*() {
        const clientId = yield* registerClient()
        expectOAuthError(
          yield* tokenRequest({ grant_type: "client_credentials", client_id: clientId }),
          400,
          "unsupported_grant_type"
        )
        expectOAuthError(
          yield* tokenRequest({ grant_type: "password", client_id: clientId }),
          400,
          "unsupported_grant_type"
        )
        expectOAuthError(yield* tokenRequest({ client_id: clientId }), 400, "invalid_request")
        expectOAuthError(
          yield* tokenRequest({
            grant_type: "authorization_code",
            code: "x",
            redirect_uri: REDIRECT_URI,
            code_verifier: pkcePair().verifier
          }),
          400,
          "invalid_request"
        )
        expectOAuthError(
          yield* tokenRequest({
            grant_type: "authorization_code",
            client_id: "client_nope",
            code: "x",
            redirect_uri: REDIRECT_URI,
            code_verifier: pkcePair().verifier
          }),
          401,
          "invalid_client"
        )
        expectOAuthError(
          yield* post("/api/oauth/token", "grant_type=authorization_code&grant_type=refresh_token", {
            "content-type": "application/x-www-form-urlencoded"
          }),
          400,
          "invalid_request"
        )
        expectOAuthError(
          yield* post("/api/oauth/token", "{oops", { "content-type": "application/json" }),
          400,
          "invalid_request"
        )
        // A body type the endpoint does not take: 415, in OAuth's error shape.
        expectOAuthError(
          yield* post("/api/oauth/token", "grant_type=refresh_token", { "content-type": "text/plain" }),
          415,
          "invalid_request"
        )
        expectOAuthError(
          yield* tokenRequest({
            grant_type: "authorization_code",
            client_id: clientId,
            code: "not-a-code",
            redirect_uri: REDIRECT_URI,
            code_verifier: pkcePair().verifier
          }),
          400,
          "invalid_grant"
        )
      }))

    it.effect("refresh rotates: new access and refresh tokens; the old access token keeps working until it expires", () =>
      Effect.gen(function*() {
        const t = yield* obtainTokens()
        const refreshed = yield* tokenRequest({
          grant_type: "refresh_token",
          client_id: t.clientId,
          refresh_token: t.refreshToken
        })
        expect(refreshed.status, refreshed.text).toBe(200)
        expect(refreshed.headers.get("cache-control")).toBe("no-store")
        expect(refreshed.json.refresh_token).not.toBe(t.refreshToken)
        expect(refreshed.json.access_token).not.toBe(t.accessToken)
        expect(refreshed.json.scope).toBe("pricing:read")
        expect((yield* withBearer(refreshed.json.access_token)).status).toBe(200)
        expect((yield* withBearer(t.accessToken)).status).toBe(200)
        const again = yield* tokenRequest({
          grant_type: "refresh_token",
          client_id: t.clientId,
          refresh_token: refreshed.json.refresh_token
        })
        expect(again.status).toBe(200)
      }))

    it.effect("reuse of a rotated refresh token revokes every token of the grant", () =>
      Effect.gen(function*() {
        const t = yield* obtainTokens()
        const next = yield* tokenRequest({
          grant_type: "refresh_token",
          client_id: t.clientId,
          refresh_token: t.refreshToken
        })
        expect(next.status).toBe(200)
        const reuse = yield* tokenRequest({
          grant_type: "refresh_token",
          client_id: t.clientId,
          refresh_token: t.refreshToken
        })
        expectOAuthError(reuse, 400, "invalid_grant")
        for (const token of [t.accessToken, next.json.access_token]) expect((yield* withBearer(token)).status).toBe(401)
        expectOAuthError(
          yield* tokenRequest({
            grant_type: "refresh_token",
            client_id: t.clientId,
            refresh_token: next.json.refresh_token
          }),
          400,
          "invalid_grant"
        )
      }))

    it.effect("a refresh token presented by another client is refused and stays usable by its own", () =>
      Effect.gen(function*() {
        const t = yield* obtainTokens()
        const other = yield* registerClient()
        expectOAuthError(
          yield* tokenRequest({ grant_type: "refresh_token", client_id: other, refresh_token: t.refreshToken }),
          400,
          "invalid_grant"
        )
        expect(
          (yield* tokenRequest({ grant_type: "refresh_token", client_id: t.clientId, refresh_token: t.refreshToken }))
            .status
        ).toBe(200)
      }))

    it.effect("refresh may narrow the scope, never widen it", () =>
      Effect.gen(function*() {
        const narrow = yield* obtainTokens([])
        expectOAuthError(
          yield* tokenRequest({
            grant_type: "refresh_token",
            client_id: narrow.clientId,
            refresh_token: narrow.refreshToken,
            scope: "pricing:read"
          }),
          400,
          "invalid_scope"
        )
        const wide = yield* obtainTokens()
        const narrowed = yield* tokenRequest({
          grant_type: "refresh_token",
          client_id: wide.clientId,
          refresh_token: wide.refreshToken,
          scope: ""
        })
        expect(narrowed.status).toBe(200)
        expect(narrowed.json.scope).toBe("")
      }))
  })

  describe("RFC 8707 resource indicators", () => {
    it.effect("a token bound to <BASE_URL>/mcp is not accepted on the REST API; one bound to <BASE_URL> is", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const mcp = yield* obtainTokens(["pricing:read"], { resource: `${baseUrl}/mcp` })
        expect((yield* introspect(mcp.accessToken)).json.aud).toBe(`${baseUrl}/mcp`)
        expect((yield* withBearer(mcp.accessToken)).status).toBe(401)
        const api = yield* obtainTokens(["pricing:read"], { resource: `${baseUrl}/` })
        expect((yield* introspect(api.accessToken)).json.aud).toBe(baseUrl)
        expect((yield* withBearer(api.accessToken)).status).toBe(200)
      }))

    it.effect("a token request for another resource than the authorized one is invalid_target", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const c = yield* freshCode({ resource: `${baseUrl}/mcp` })
        expectOAuthError(yield* exchange(c, { resource: baseUrl }), 400, "invalid_target")
        const d = yield* freshCode()
        expectOAuthError(yield* exchange(d, { resource: "https://elsewhere.example/" }), 400, "invalid_target")
      }))
  })

  describe("revocation and introspection", () => {
    it.effect("revoking an access token ends it; revoking a refresh token ends the grant; unknown tokens are a 200", () =>
      Effect.gen(function*() {
        const revoke = (token: string, clientId?: string) =>
          post(
            "/api/oauth/revoke",
            new URLSearchParams({ token, ...(clientId ? { client_id: clientId } : {}) }).toString(),
            {
              "content-type": "application/x-www-form-urlencoded"
            }
          )
        const a = yield* obtainTokens()
        expect((yield* revoke(a.accessToken, a.clientId)).status).toBe(200)
        expect((yield* withBearer(a.accessToken)).status).toBe(401)
        expect(
          (yield* tokenRequest({ grant_type: "refresh_token", client_id: a.clientId, refresh_token: a.refreshToken }))
            .status
        ).toBe(200)

        const b = yield* obtainTokens()
        expect((yield* revoke(b.refreshToken, b.clientId)).status).toBe(200)
        expect((yield* withBearer(b.accessToken)).status).toBe(401)
        expectOAuthError(
          yield* tokenRequest({ grant_type: "refresh_token", client_id: b.clientId, refresh_token: b.refreshToken }),
          400,
          "invalid_grant"
        )

        expect((yield* revoke("at_unknown")).status).toBe(200)
        // Another client cannot revoke someone else's token.
        const c = yield* obtainTokens()
        expect((yield* revoke(c.accessToken, yield* registerClient())).status).toBe(200)
        expect((yield* withBearer(c.accessToken)).status).toBe(200)
        expectOAuthError(
          yield* post("/api/oauth/revoke", "", { "content-type": "application/x-www-form-urlencoded" }),
          400,
          "invalid_request"
        )
      }))

    it.effect("introspection needs the admin token and describes live tokens only", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const t = yield* obtainTokens()
        const anonymous = yield* post("/api/oauth/introspect", `token=${t.accessToken}`, {
          "content-type": "application/x-www-form-urlencoded"
        })
        expect(anonymous.status).toBe(401)
        expect(anonymous.json.error).toBe("invalid_client")
        const wrong = yield* post("/api/oauth/introspect", `token=${t.accessToken}`, {
          authorization: "Bearer not-the-admin-token",
          "content-type": "application/x-www-form-urlencoded"
        })
        expect(wrong.status).toBe(401)
        const info = yield* introspect(t.accessToken)
        expect(info.json).toEqual({
          active: true,
          scope: "pricing:read",
          client_id: t.clientId,
          sub: t.user.id,
          token_type: "Bearer",
          exp: expect.any(Number),
          iat: expect.any(Number),
          iss: baseUrl
        })
        expect(info.json.exp - info.json.iat).toBe(1800)
        expect((yield* introspect("at_nope")).json).toEqual({ active: false })
      }))
  })

  describe("bearer tokens on the public surface", () => {
    it.effect("no Authorization header: anonymous (200); a bad token: 401 with WWW-Authenticate invalid_token + resource_metadata", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        expect((yield* get(BEARER_PATH)).status).toBe(200)
        for (const header of ["Bearer at_unknown", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer a b"]) {
          const reply = yield* get(BEARER_PATH, { authorization: header })
          expect(reply.status, header).toBe(401)
          const challenge = reply.headers.get("www-authenticate")!
          expect(challenge, header).toMatch(
            /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+"$/
          )
          expect(challenge).toContain(`resource_metadata="${baseUrl}/.well-known/oauth-protected-resource"`)
          expect(reply.json.error.code).toBe("invalid_token")
        }
      }))
  })
})

describe("lifetimes (configurable for tests)", () => {
  layer(
    serverAtBaseUrl({
      OAUTH_CODE_TTL: "1 second",
      OAUTH_ACCESS_TOKEN_TTL: "1 second",
      OAUTH_REFRESH_TOKEN_TTL: "3 seconds"
    }),
    { timeout: 120_000 }
  )(
    "short lifetimes",
    (it) => {
      it.effect("a code used after its lifetime is invalid_grant", () =>
        Effect.gen(function*() {
          const c = yield* freshCode()
          yield* sleep(1500)
          const reply = yield* exchange(c)
          expectOAuthError(reply, 400, "invalid_grant")
          expect(reply.json.error_description).toContain("expired")
        }))

      it.effect("an access token after its lifetime: 401 invalid_token; the refresh token still works, then expires too", () =>
        Effect.gen(function*() {
          const t = yield* obtainTokens()
          expect((yield* withBearer(t.accessToken)).status).toBe(200)
          yield* sleep(1500)
          const expired = yield* withBearer(t.accessToken)
          expect(expired.status).toBe(401)
          expect(expired.headers.get("www-authenticate")).toContain("error=\"invalid_token\"")
          expect((yield* introspect(t.accessToken)).json).toEqual({ active: false })
          const refreshed = yield* tokenRequest({
            grant_type: "refresh_token",
            client_id: t.clientId,
            refresh_token: t.refreshToken
          })
          expect(refreshed.status).toBe(200)
          expect(refreshed.json.expires_in).toBe(1)
          yield* sleep(3500)
          const late = yield* tokenRequest({
            grant_type: "refresh_token",
            client_id: t.clientId,
            refresh_token: refreshed.json.refresh_token
          })
          expectOAuthError(late, 400, "invalid_grant")
        }))
    }
  )
})

describe("rate limit (counted by the request guard, answered in OAuth's shape)", () => {
  layer(serverAtBaseUrl({ RATE_LIMITS: JSON.stringify({ oauth_token: 1 }) }), { timeout: 120_000 })(
    "token endpoint limited to 1 a minute",
    (it) => {
      it.effect("the request over the limit is 429 {error: rate_limited}, no-store, CORS, Retry-After; a bad one counted", () =>
        Effect.gen(function*() {
          // Both requests in the limit's one minute (a window turning between them admits the second).
          yield* inOneWindow()
          const bad = yield* tokenRequest({ grant_type: "bogus" })
          expectOAuthError(bad, 400, "unsupported_grant_type")
          const refused = yield* tokenRequest({ grant_type: "bogus" })
          expectOAuthError(refused, 429, "rate_limited")
          expect(refused.headers.get("access-control-allow-origin")).toBe("*")
          expect(refused.headers.get("pragma")).toBe("no-cache")
          expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
          expect(refused.headers.get("ratelimit-policy")).toBe("1;w=60")
        }))
    }
  )
})
