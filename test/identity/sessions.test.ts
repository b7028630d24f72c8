/**
 * Sign-in: POST /api/auth/login, POST /api/auth/logout, GET /api/auth/me; the session cookie's
 * flags; sessions stored hashed; foreign Origin refused; login rate limits; `user create` CLI.
 *
 * Answers and declared errors are read through the typed client (HttpApiClient.make(Api)): Me is
 * decoded by its schema, refusals are InvalidCredentials / UnauthorizedError / RateLimitedError.
 * Raw requests stay where the test is about the wire: the Set-Cookie strings (set, expired, or
 * absent), the login's exact JSON answer, CSRF (Origin / Sec-Fetch-Site), Retry-After, a body the
 * typed client cannot send, and the OpenAPI document.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { createHash } from "node:crypto"
import { createUser } from "../../src/identity/accounts/Accounts.js"
import { InvalidCredentials } from "../../src/identity/accounts/Errors.js"
import { RateLimitedError, UnauthorizedError } from "../../src/platform/http/Errors.js"
import { OwnedDomainsLive } from "../../src/portfolio/OwnedDomains.js"
import { apiClient, expectFailure, wireOf } from "../support/ApiClient.js"
import { runCli } from "../support/cli.js"
import { get, post, type Reply, typedError } from "../support/http.js"
import { createTestUser, sessionCookieOf, signIn } from "../support/identity.js"
import { inOneWindow } from "../support/RateWindow.js"
import * as TestServer from "../support/TestServer.js"

const login = (email: string, password: string, headers: Record<string, string> = {}) =>
  post("/api/auth/login", { email, password }, headers)

const setCookieOf = (reply: Reply) => reply.headers.getSetCookie().find((c) => c.startsWith("mp_session=")) ?? ""

const attributes = (setCookie: string) => setCookie.split(";").slice(1).map((a) => a.trim().toLowerCase())

/** The typed client, with a session cookie if given. */
const session = (cookie?: string) => apiClient(cookie === undefined ? {} : { headers: { cookie } })

/** The typed login, as its answer and response. */
const typedLogin = (email: string, password: string) =>
  Effect.flatMap(session(), (client) => client.auth.login({ payload: { email, password }, withResponse: true }))

layer(TestServer.layer())("sign-in and sessions", (it) => {
  it.effect("login answers the user and sets an HttpOnly, SameSite=Lax session cookie (not Secure outside production)", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser()
      // Raw: the Set-Cookie string and the exact JSON answer (no other keys) are the wire.
      const reply = yield* login(user.email.toUpperCase(), user.password)
      expect(reply.status).toBe(200)
      expect(reply.json).toEqual({
        user: {
          id: user.id,
          email: user.email,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        },
        session: { expires_at: expect.stringMatching(/Z$/) }
      })
      const cookie = setCookieOf(reply)
      expect(cookie).toMatch(/^mp_session=[A-Za-z0-9_-]{43};/)
      const attrs = attributes(cookie)
      expect(attrs).toContain("httponly")
      expect(attrs).toContain("samesite=lax")
      expect(attrs).toContain("path=/")
      expect(attrs.some((a) => a.startsWith("max-age="))).toBe(true)
      expect(Number(attrs.find((a) => a.startsWith("max-age="))!.slice(8))).toBeGreaterThan(13 * 86400)
      expect(attrs).not.toContain("secure")
    }))

  it.effect("GET /api/auth/me answers the signed-in user and their domains; 401 not_signed_in otherwise", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser({ domains: ["Example.COM", "bücher.de"] })
      const cookie = yield* signIn(user)
      const [me, response] = yield* (yield* session(cookie)).auth.me({ withResponse: true })
      expect(response.status).toBe(200)
      expect(me.user).toMatchObject({ id: user.id, email: user.email })
      expect(me.domains).toEqual(["example.com", "xn--bcher-kva.de"])
      expect(me.session.expires_at).toMatch(/Z$/)

      // SessionAuth's 401: the typed UnauthorizedError, its wire code not_signed_in.
      const anonymous = yield* expectFailure((yield* session()).auth.me(), 401, "not_signed_in")
      expect(anonymous).toBeInstanceOf(UnauthorizedError)
      const forged = yield* expectFailure(
        (yield* session("mp_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).auth.me(),
        401,
        "not_signed_in"
      )
      expect(forged).toBeInstanceOf(UnauthorizedError)
    }))

  it.effect("wrong password and unknown e-mail get the same 401 invalid_credentials", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser()
      const client = yield* session()
      // Typed: both are InvalidCredentials (401 invalid_credentials), with the same message.
      const wrong = yield* Effect.flip(
        client.auth.login({ payload: { email: user.email, password: user.password + "x" } })
      )
      const unknown = yield* Effect.flip(
        client.auth.login({ payload: { email: "nobody@example.test", password: user.password } })
      )
      for (const e of [wrong, unknown]) {
        expect(e).toBeInstanceOf(InvalidCredentials)
        expect(wireOf(e)).toEqual({ status: 401, code: "invalid_credentials" })
      }
      expect(wrong.message).toBe(unknown.message)
      // Raw: no Set-Cookie on the wire for either.
      for (
        const reply of [
          yield* login(user.email, user.password + "x"),
          yield* login("nobody@example.test", user.password)
        ]
      ) {
        expect(reply.status).toBe(401)
        expect(setCookieOf(reply)).toBe("")
      }
    }))

  it.effect("400 validation_error for a malformed body", () =>
    Effect.gen(function*() {
      // Raw: the typed client cannot send a body without its password.
      const reply = yield* post("/api/auth/login", { email: "a@b.c" })
      expect(reply.status).toBe(400)
      expect(typedError(reply).code).toBe("validation_error")
    }))

  it.effect("logout ends the session server-side and expires the cookie", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser()
      const cookie = yield* signIn(user)
      const out = yield* post("/api/auth/logout", undefined, { cookie })
      expect(out.status).toBe(204)
      const cleared = setCookieOf(out)
      expect(cleared).toMatch(/^mp_session=;/)
      expect(attributes(cleared)).toContain("max-age=0")
      // The old cookie value no longer works, even if a client keeps sending it.
      expect(yield* Effect.flip((yield* session(cookie)).auth.me())).toBeInstanceOf(UnauthorizedError)
      // Logging out again (or never signed in) is still a 204.
      const [, again] = yield* (yield* session()).auth.logout({ withResponse: true })
      expect(again.status).toBe(204)
    }))

  it.effect("only the SHA-256 of the session token is stored", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser()
      const cookie = yield* signIn(user)
      const token = cookie.slice("mp_session=".length)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ token_hash: string }>`select token_hash from sessions where user_id = ${user.id}`
      expect(rows.map((r) => r.token_hash)).toEqual([createHash("sha256").update(token).digest("hex")])
      expect(JSON.stringify(yield* sql`select * from sessions`)).not.toContain(token)
      const users = yield* sql<{ password_hash: string }>`select password_hash from users where id = ${user.id}`
      // scrypt at the tests' cost (the production default, 2^15: test/platform/security/passwords.test.ts).
      const n = 2 ** TestServer.TEST_PASSWORD_HASH_COST
      expect(users[0].password_hash).toMatch(
        new RegExp(`^scrypt\\$${n}\\$8\\$1\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$`)
      )
      expect(users[0].password_hash).not.toContain(user.password)
    }))

  it.effect("a foreign Origin is refused on cookie-authenticated writes (403 origin_refused)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.TestServer
      const user = yield* createTestUser()
      const cookie = yield* signIn(user)

      const foreignLogout = yield* post("/api/auth/logout", undefined, { cookie, origin: "https://evil.example" })
      expect(foreignLogout.status).toBe(403)
      expect(typedError(foreignLogout).code).toBe("origin_refused")
      expect((yield* (yield* session(cookie)).auth.me()).user.id).toBe(user.id) // still signed in

      const opaque = yield* post("/api/auth/logout", undefined, { cookie, origin: "null" })
      expect(opaque.status).toBe(403)
      const fetchMetadata = yield* post("/api/auth/logout", undefined, { cookie, "sec-fetch-site": "cross-site" })
      expect(fetchMetadata.status).toBe(403)

      // Login CSRF (signing the victim into the attacker's account) is refused too.
      const foreignLogin = yield* login(user.email, user.password, { origin: "https://evil.example" })
      expect(foreignLogin.status).toBe(403)
      expect(typedError(foreignLogin).code).toBe("origin_refused")
      expect(setCookieOf(foreignLogin)).toBe("")

      // The service's own origin is fine.
      const own = yield* post("/api/auth/logout", undefined, {
        cookie,
        origin: server.baseUrl,
        "sec-fetch-site": "same-origin"
      })
      expect(own.status).toBe(204)
    }))

  it.effect("the OpenAPI document declares the sign-in endpoints and the session cookie scheme", () =>
    Effect.gen(function*() {
      const doc = (yield* get("/api/openapi.json")).json
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining(["/api/auth/login", "/api/auth/logout", "/api/auth/me"])
      )
      expect(doc.paths["/api/auth/login"].post.responses["401"]).toBeDefined()
      expect(doc.paths["/api/auth/me"].get.security).toEqual([{ session: [] }])
      expect(doc.components.securitySchemes.session).toMatchObject({ type: "apiKey", in: "cookie", name: "mp_session" })
    }))
})

describe("login rate limits", () => {
  layer(TestServer.layer({ RATE_LIMITS: JSON.stringify({ auth_login_account: 3, auth_login: 1000 }) }))(
    "per account",
    (it) => {
      it.effect("the 4th attempt on one account in the window is a 429, even with the right password; other accounts are unaffected", () =>
        Effect.gen(function*() {
          const victim = yield* createTestUser()
          const other = yield* createTestUser()
          const client = yield* session()
          const refusals = []
          for (let i = 0; i < 3; i++) {
            refusals.push(
              yield* Effect.flip(client.auth.login({ payload: { email: victim.email, password: "wrong-password" } }))
            )
          }
          expect(refusals.map((e) => wireOf(e).status)).toEqual([401, 401, 401])
          for (const e of refusals) expect(e).toBeInstanceOf(InvalidCredentials)
          // Raw: Retry-After and the absent Set-Cookie are the wire.
          const limited = yield* login(victim.email.toUpperCase(), victim.password)
          expect(limited.status).toBe(429)
          expect(typedError(limited).code).toBe("rate_limited")
          expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
          expect(setCookieOf(limited)).toBe("")
          const [signedIn, response] = yield* typedLogin(other.email, other.password)
          expect(response.status).toBe(200)
          expect(signedIn.user.id).toBe(other.id)
        }))
    }
  )

  layer(TestServer.layer({ RATE_LIMITS: JSON.stringify({ auth_login: 3 }) }))("per IP", (it) => {
    it.effect("the 4th attempt from one IP in the window is a 429 whatever the account", () =>
      Effect.gen(function*() {
        const users = [
          yield* createTestUser(),
          yield* createTestUser(),
          yield* createTestUser(),
          yield* createTestUser()
        ]
        // Four logins that straddle the end of the limit's fixed minute would count in two windows.
        yield* inOneWindow()
        const replies = []
        for (const u of users) replies.push(yield* Effect.either(typedLogin(u.email, u.password)))
        expect(replies.map(Either.match({ onLeft: (e) => wireOf(e).status, onRight: ([, r]) => r.status }))).toEqual([
          200,
          200,
          200,
          429
        ])
        expect(Either.getOrThrow(replies[0])[1].headers["ratelimit-limit"]).toBe("3")
        const limited = Either.getOrThrow(Either.flip(replies[3]))
        expect(limited).toBeInstanceOf(RateLimitedError)
        expect(wireOf(limited).code).toBe("rate_limited")
      }))
  })
})

describe("in production", () => {
  layer(
    TestServer.layer({ NODE_ENV: "production", TEST_MODE: "true", METRICS_TOKEN: "Mt4Kq8Zr2Vx6Bn1Lp9Wd3Hs7Fj5Gc0Ya" })
  )("cookie", (it) => {
    it.effect("the session cookie is Secure", () =>
      Effect.gen(function*() {
        const user = yield* createTestUser()
        const reply = yield* login(user.email, user.password)
        expect(reply.status).toBe(200)
        expect(attributes(setCookieOf(reply))).toContain("secure")
        expect(sessionCookieOf(reply)).toBeDefined()
      }))
  })
})

layer(TestServer.layer())("createUser (the code path of the CLI)", (it) => {
  it.effect("refuses a bad e-mail, a short password, an invalid domain, an e-mail or domain already taken", () =>
    Effect.gen(function*() {
      // Each refusal is its own domain error, carrying its wire code.
      const fail = (input: Parameters<typeof createUser>[0]) =>
        Effect.flip(createUser(input).pipe(Effect.provide(OwnedDomainsLive))).pipe(
          Effect.map((e) => (e.constructor as unknown as { meta: { code: string } }).meta.code)
        )
      expect(yield* fail({ email: "not-an-email", password: "long enough pw" })).toBe("invalid_email")
      expect(yield* fail({ email: "short@example.test", password: "short" })).toBe("weak_password")
      expect(yield* fail({ email: "d@example.test", password: "long enough pw", domains: ["not a domain"] })).toBe(
        "invalid_domain"
      )
      yield* createUser({ email: "first@example.test", password: "long enough pw", domains: ["mine.com"] }).pipe(
        Effect.provide(OwnedDomainsLive)
      )
      expect(yield* fail({ email: "FIRST@example.test", password: "long enough pw" })).toBe("email_taken")
      expect(yield* fail({ email: "second@example.test", password: "long enough pw", domains: ["MINE.com"] })).toBe(
        "domain_taken"
      )
      // A refused user is not half-created.
      const sql = yield* SqlClient.SqlClient
      expect(yield* sql`select 1 from users where email = 'second@example.test'`).toHaveLength(0)
    }))
})

describe("user create (CLI)", () => {
  const server = Layer.unwrapScoped(
    Effect.map(TestServer.sharedDatabaseUrl, (url) => TestServer.layer({}, { databaseUrl: url }))
  )
  layer(server, { timeout: 120_000 })("against the service's database", (it) => {
    it.effect(
      "creates a user who can sign in at once and owns the listed domains; duplicates and bad input fail",
      () =>
        Effect.gen(function*() {
          const { databaseUrl } = yield* TestServer.TestServer
          const created = yield* runCli(databaseUrl!, [
            "user",
            "create",
            "--email",
            "Owner@Example.test",
            "--password",
            "correct horse battery",
            "--domains",
            "owned.com, Bücher.de",
            "--json"
          ])
          expect(created.code, created.stderr).toBe(0)
          const out = JSON.parse(created.stdout)
          expect(out).toMatchObject({ email: "owner@example.test", domains: ["owned.com", "xn--bcher-kva.de"] })
          expect(out.id).toMatch(/^usr_/)

          const cookie = yield* signIn({ email: "owner@example.test", password: "correct horse battery" })
          const me = yield* (yield* session(cookie)).auth.me()
          expect(me.domains).toEqual(["owned.com", "xn--bcher-kva.de"])

          const duplicate = yield* runCli(databaseUrl!, [
            "user",
            "create",
            "--email",
            "owner@example.test",
            "--password",
            "another password"
          ])
          expect(duplicate.code).toBe(4) // conflict (docs/operations.md exit codes)
          expect(duplicate.stderr).toContain("already exists")
          const taken = yield* runCli(databaseUrl!, [
            "user",
            "create",
            "--email",
            "t@example.test",
            "--password",
            "long enough pw",
            "--domains",
            "owned.com"
          ])
          expect(taken.code).toBe(4)
          expect(taken.stderr).toContain("owned.com")
        }),
      { timeout: 300_000 }
    ) // four CLI processes: slow on a loaded 2-core machine
  })
})
