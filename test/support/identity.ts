/**
 * Identity fixtures: real users, sessions and OAuth access tokens, obtained by driving the real
 * HTTP flow against the TestServer in scope (nothing is inserted behind the service's back
 * except the user account itself, created by the same code path as `npm run cli -- user create`).
 *
 *   layer(TestServer.layer())("masked prices", (it) => {
 *     it.effect("unmasks with pricing:read", () => Effect.gen(function*() {
 *       const token = yield* accessToken(["pricing:read"])
 *       const res = yield* get("/api/market/listings", { authorization: `Bearer ${token}` })
 *     }))
 *   })
 *
 * `accessToken()` = one new user, one registered client, sign-in, consent, code exchange with
 * PKCE. `accessToken([])` gives a valid token without any scope.
 *
 * Each call signs in once, and sign-in is rate-limited per IP (20/min by default): a test file
 * needing more tokens per minute sets `RATE_LIMITS: '{"auth_login":1000}'` on its TestServer.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { createUser } from "../../src/identity/accounts/Accounts.js"
import { OwnedDomainsLive } from "../../src/portfolio/OwnedDomains.js"
import { fetchReply, type Reply } from "./http.js"
import { freePort as freeLoopbackPort } from "./ServiceProcess.js"
import * as TestServer from "./TestServer.js"

export const REDIRECT_URI = "http://127.0.0.1/callback"

/** A PKCE pair (RFC 7636): random verifier, S256 challenge. */
export const pkcePair = () => {
  const verifier = randomBytes(32).toString("base64url")
  const challenge = createHash("sha256").update(verifier).digest("base64url")
  return { verifier, challenge }
}

export interface TestUser {
  readonly id: string
  readonly email: string
  readonly password: string
}

/** A new user with a random e-mail and password (and the given owned domains and role). */
export const createTestUser = (
  options: {
    readonly email?: string
    readonly password?: string
    readonly domains?: ReadonlyArray<string>
    readonly role?: "member" | "operator"
  } = {}
) =>
  Effect.gen(function*() {
    const email = options.email ?? `user-${randomBytes(6).toString("hex")}@example.test`
    const password = options.password ?? `pw-${randomBytes(12).toString("base64url")}`
    const created = yield* createUser({
      email,
      password,
      domains: options.domains ?? [],
      role: options.role ?? "member"
    }, TestServer.TEST_PASSWORD_HASH_COST).pipe(Effect.provide(OwnedDomainsLive), Effect.orDie)
    return { id: created.user.id, email, password } satisfies TestUser
  })

const call = (path: string, init: Parameters<typeof fetchReply>[1]) =>
  Effect.flatMap(TestServer.TestServer, (server) => Effect.promise(() => fetchReply(`${server.baseUrl}${path}`, init)))

/** `name=value` of the session cookie set by a response. */
export const sessionCookieOf = (reply: Reply): string | undefined => {
  const cookie = reply.headers.getSetCookie().find((c) => c.startsWith("mp_session="))
  return cookie?.split(";")[0]
}

/** Signs in through POST /api/auth/login; returns the `Cookie` header value. */
export const signIn = (user: { readonly email: string; readonly password: string }) =>
  Effect.gen(function*() {
    const reply = yield* call("/api/auth/login", {
      method: "POST",
      body: { email: user.email, password: user.password }
    })
    const cookie = sessionCookieOf(reply)
    if (reply.status !== 200 || cookie === undefined) {
      return yield* Effect.dieMessage(`sign-in failed: ${reply.status} ${reply.text}`)
    }
    return cookie
  })

/** Registers a public client (RFC 7591); returns its client_id. */
export const registerClient = (redirectUris: ReadonlyArray<string> = [REDIRECT_URI], clientName = "Test client") =>
  Effect.gen(function*() {
    const reply = yield* call("/api/oauth/register", {
      method: "POST",
      body: { redirect_uris: redirectUris, client_name: clientName }
    })
    if (reply.status !== 201) {
      return yield* Effect.dieMessage(`client registration failed: ${reply.status} ${reply.text}`)
    }
    return reply.json.client_id as string
  })

export interface AuthorizeOptions {
  readonly clientId: string
  readonly cookie: string
  readonly challenge: string
  readonly scopes?: ReadonlyArray<string> | undefined
  readonly redirectUri?: string
  readonly state?: string
  readonly resource?: string | undefined
  readonly decision?: "approve" | "deny"
}

/** The authorize query string of a standard request. */
export const authorizeQuery = (o: Omit<AuthorizeOptions, "cookie" | "decision">) => {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: o.clientId,
    redirect_uri: o.redirectUri ?? REDIRECT_URI,
    code_challenge: o.challenge,
    code_challenge_method: "S256"
  })
  if (o.state !== undefined) q.set("state", o.state)
  if (o.scopes !== undefined) q.set("scope", o.scopes.join(" "))
  if (o.resource !== undefined) q.set("resource", o.resource)
  return q.toString()
}

/**
 * Opens the consent page as the signed-in user and submits the decision like the browser form
 * does. Returns the redirect URL the browser is sent to.
 */
export const authorize = (o: AuthorizeOptions) =>
  Effect.gen(function*() {
    const server = yield* TestServer.TestServer
    const path = `/oauth/authorize?${authorizeQuery(o)}`
    const page = yield* call(path, { headers: { cookie: o.cookie } })
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1]
    if (page.status !== 200 || csrf === undefined) {
      return yield* Effect.dieMessage(`no consent page: ${page.status} ${page.text.slice(0, 300)}`)
    }
    const form = new URLSearchParams({ csrf, action: o.decision ?? "approve" })
    const decision = yield* call(path, {
      method: "POST",
      headers: { cookie: o.cookie, "content-type": "application/x-www-form-urlencoded", origin: server.baseUrl },
      body: form.toString()
    })
    const location = decision.headers.get("location")
    if (decision.status !== 303 || location === null) {
      return yield* Effect.dieMessage(`no redirect after consent: ${decision.status} ${decision.text.slice(0, 300)}`)
    }
    return new URL(location)
  })

/** POST /api/oauth/token, form-encoded. */
export const tokenRequest = (params: Record<string, string>) =>
  call("/api/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params).toString()
  })

/** Everything `accessToken` does, returning the whole token response and the parties involved. */
export const obtainTokens = (
  scopes: ReadonlyArray<string> = ["pricing:read"],
  options: { readonly resource?: string } = {}
) =>
  Effect.gen(function*() {
    const user = yield* createTestUser()
    const clientId = yield* registerClient()
    const cookie = yield* signIn(user)
    const { verifier, challenge } = pkcePair()
    const redirect = yield* authorize({ clientId, cookie, challenge, scopes, state: "fixture", ...options })
    const code = redirect.searchParams.get("code")
    if (code === null) return yield* Effect.dieMessage(`no code on the redirect: ${redirect}`)
    const reply = yield* tokenRequest({
      grant_type: "authorization_code",
      client_id: clientId,
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...(options.resource !== undefined ? { resource: options.resource } : {})
    })
    if (reply.status !== 200) return yield* Effect.dieMessage(`token exchange failed: ${reply.status} ${reply.text}`)
    return {
      user,
      clientId,
      cookie,
      accessToken: reply.json.access_token as string,
      refreshToken: reply.json.refresh_token as string,
      scope: reply.json.scope as string
    }
  })

/**
 * A real OAuth access token (bearer) for a new user, holding `scopes` (default `pricing:read`).
 * Needs the TestServer layer in scope (which also provides the SqlClient).
 */
export const accessToken = (
  scopes: ReadonlyArray<string> = ["pricing:read"]
): Effect.Effect<string, never, TestServer.TestServer | SqlClient.SqlClient> =>
  Effect.map(obtainTokens(scopes), (t) => t.accessToken)

/** A free TCP port on 127.0.0.1 (for servers whose BASE_URL must equal their real address). */
export const freePort = freeLoopbackPort()

/**
 * A TestServer whose BASE_URL is its real address (`http://127.0.0.1:<port>`), as strict OAuth
 * clients need: the AS metadata `issuer` and the redirect's `iss` must equal the URL they use.
 */
export const serverAtBaseUrl = (env: Record<string, string> = {}) =>
  Layer.unwrapEffect(
    Effect.map(freePort, (port) =>
      TestServer.layer({
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        // Tests sign in far more often than a person does.
        RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 }),
        ...env
      }))
  )
