/**
 * The account pages (src/storefront/Account*.ts) through HTTP against the real server: anonymous
 * `/account` → 303 to `/signin?next=/account`; sign-in (303 to `next`, a new session each time),
 * a wrong password, a stale or cross-site form refused, `next` never leaving the site; sign-up (a
 * duplicate e-mail is the form again, never a 500); sign-out; a bulk action from the form to its
 * job page; and nobody seeing another person's job or cart.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { BulkCart } from "../../src/portfolio/Api.js"
import { apiClient } from "../support/ApiClient.js"
import { request } from "../support/http.js"
import { createTestUser, sessionCookieOf, signIn } from "../support/identity.js"
import { rtrSettings, startRtrServer, TEST_RTR_ACCOUNT } from "../support/RtrServer.js"
import * as TestServer from "../support/TestServer.js"

const HTML = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" }
const FORM = { ...HTML, "content-type": "application/x-www-form-urlencoded" }

const env = Layer.unwrapScoped(
  Effect.map(
    startRtrServer({ ...TEST_RTR_ACCOUNT, tlds: {}, anyDomain: true }),
    (rtr) =>
      TestServer.layer({
        ...rtrSettings(rtr),
        RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 })
      })
  )
)

const csrfOf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? ""

const page = (path: string, cookie?: string) => request(path, { headers: { ...HTML, ...(cookie ? { cookie } : {}) } })

const postForm = (path: string, fields: Record<string, string | ReadonlyArray<string>>, headers = {}) => {
  const body = new URLSearchParams()
  for (const [k, v] of Object.entries(fields)) for (const one of typeof v === "string" ? [v] : v) body.append(k, one)
  return request(path, { method: "POST", body: body.toString(), headers: { ...FORM, ...headers } })
}

/** The sign-in form's post, with a fresh token from GET /signin. */
const signInForm = (fields: { email: string; password: string; next?: string }, headers = {}) =>
  Effect.gen(function*() {
    const form = yield* page("/signin")
    return yield* postForm("/signin", { ...fields, csrf: csrfOf(form.text) }, headers)
  })

layer(env, { timeout: 120_000 })("account pages", (it) => {
  it.effect("anonymous /account, job and cart pages → 303 to /signin?next=…", () =>
    Effect.gen(function*() {
      const account = yield* page("/account")
      expect(account.status).toBe(303)
      expect(account.headers.get("location")).toBe("/signin?next=/account")
      const job = yield* page("/account/jobs/bulk_x")
      expect(job.headers.get("location")).toBe("/signin?next=/account/jobs/bulk_x")
      const signin = yield* page("/signin?next=/account")
      expect(signin.status).toBe(200)
      expect(signin.headers.get("content-security-policy")).toMatch(/script-src 'none'|nonce-/)
      expect(signin.text).toContain(`<form method="post" action="/signin">`)
      expect(csrfOf(signin.text)).not.toBe("")
    }))

  it.effect("sign-in: 303 to next with a new session; a wrong password is the form again (401)", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser()
      const old = yield* signIn(user)
      const ok = yield* signInForm({ ...user, next: "/market?q=a" }, { cookie: old })
      expect(ok.status, ok.text).toBe(303)
      expect(ok.headers.get("location")).toBe("/market?q=a")
      const cookie = sessionCookieOf(ok)!
      expect(cookie).toBeDefined()
      expect(cookie).not.toBe(old)
      // The session held before signing in ended (no fixation): only the new one works.
      expect((yield* page("/account", old)).status).toBe(303)
      const account = yield* page("/account", cookie)
      expect(account.status).toBe(200)
      expect(account.text).toContain(user.email)
      // The header says "Sign in" to a reader without a session and "Account" to one with it, on
      // every page; the footer keeps "Account".
      const header = (text: string) => /<header class="site">[\s\S]*?<\/header>/.exec(text)?.[0] ?? ""
      const anonymousHome = yield* page("/")
      expect(header(anonymousHome.text)).toContain(`<a href="/signin">Sign in</a>`)
      expect(header(anonymousHome.text)).not.toContain("/account")
      expect(anonymousHome.text).toMatch(/<footer class="site">[\s\S]*<a href="\/account">Account<\/a>/)
      expect(header(account.text)).toContain(`<a href="/account">Account</a>`)
      expect(header((yield* page("/market", cookie)).text)).not.toContain("Sign in")

      const wrong = yield* signInForm({ email: user.email, password: "not-the-password" })
      expect(wrong.status).toBe(401)
      expect(wrong.text).toContain("Wrong e-mail or password.")
      expect(sessionCookieOf(wrong)).toBeUndefined()
    }))

  it.effect("a stale, missing or other form's token, or a post from another site → 403, no session", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser()
      const signup = yield* page("/signup")
      for (const csrf of ["", "0.x", csrfOf(signup.text)]) {
        const refused = yield* postForm("/signin", { ...user, csrf })
        expect(refused.status, csrf).toBe(403)
        expect(sessionCookieOf(refused)).toBeUndefined()
      }
      const crossSite = yield* signInForm(user, { origin: "http://evil.example" })
      expect(crossSite.status).toBe(403)
      expect(sessionCookieOf(crossSite)).toBeUndefined()
    }))

  it.effect("`next` leaving the site goes to /account instead (no open redirect)", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser()
      for (
        const next of [
          "//evil.example/x",
          "https://evil.example/",
          "/\\evil.example",
          "\\\\evil.example",
          "javascript:alert(1)",
          "/%0d%0aLocation:%20http://evil.example",
          "/ /evil.example",
          "evil.example"
        ]
      ) {
        const reply = yield* signInForm({ ...user, next })
        expect(reply.status, next).toBe(303)
        const location = reply.headers.get("location")!
        expect(location.startsWith("/") && !location.startsWith("//") && !location.startsWith("/\\"), next).toBe(true)
        expect(new URL(location, "http://here.test").host, next).toBe("here.test")
      }
      const outside = yield* signInForm({ ...user, next: "//evil.example/x" })
      expect(outside.headers.get("location")).toBe("/account")
      // Already signed in: /signin goes straight to a safe next.
      const cookie = sessionCookieOf(outside)!
      const again = yield* page("/signin?next=https://evil.example", cookie)
      expect(again.status).toBe(303)
      expect(again.headers.get("location")).toBe("/account")
    }))

  it.effect("sign-up creates the account and signs in; a duplicate e-mail is the form again with a message", () =>
    Effect.gen(function*() {
      const email = `signup-${Date.now()}@example.test`
      const form = yield* page("/signup")
      const made = yield* postForm("/signup", { email, password: "long enough pw", csrf: csrfOf(form.text) })
      expect(made.status, made.text).toBe(303)
      expect(made.headers.get("location")).toBe("/account")
      const account = yield* page("/account", sessionCookieOf(made)!)
      expect(account.status).toBe(200)
      expect(account.text).toContain(email)

      const dup = yield* postForm("/signup", {
        email: email.toUpperCase(),
        password: "another long pw",
        csrf: csrfOf((yield* page("/signup")).text)
      })
      expect(dup.status).toBe(400)
      expect(dup.text).toContain("An account with this e-mail already exists")
      expect(sessionCookieOf(dup)).toBeUndefined()
      const short = yield* postForm("/signup", {
        email: `short-${email}`,
        password: "short",
        csrf: csrfOf((yield* page("/signup")).text)
      })
      expect(short.status).toBe(400)
      expect(short.text).toContain("at least 8 characters")
    }))

  it.effect("sign-out needs the session's token; then the session is over", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser()
      const cookie = yield* signIn(user)
      const refused = yield* postForm("/signout", { csrf: "0.x" }, { cookie })
      expect(refused.status).toBe(403)
      expect((yield* page("/account", cookie)).status).toBe(200)
      const account = yield* page("/account", cookie)
      const out = yield* postForm("/signout", { csrf: csrfOf(account.text) }, { cookie })
      expect(out.status).toBe(303)
      expect(out.headers.get("location")).toBe("/")
      expect((yield* page("/account", cookie)).status).toBe(303)
    }))

  it.effect("the bulk form: a job for the ticked names, its page; others' jobs and carts are not visible", () =>
    Effect.gen(function*() {
      const alice = yield* createTestUser({ domains: ["acct-a1.com", "acct-a2.com"] })
      const bob = yield* createTestUser({ domains: ["acct-b1.com"] })
      const aliceCookie = yield* signIn(alice)
      const bobCookie = yield* signIn(bob)

      const account = yield* page("/account", aliceCookie)
      expect(account.text).toContain(`value="acct-a1.com"`)
      expect(account.text).not.toContain("acct-b1.com")
      const csrf = csrfOf(account.text)
      const nothing = yield* postForm("/account/bulk", { op: "lock", csrf }, { cookie: aliceCookie })
      expect(nothing.status).toBe(400)
      expect(nothing.text).toContain("Tick at least one name.")
      const stolen = yield* postForm("/account/bulk", {
        op: "lock",
        domain: ["acct-a1.com"],
        csrf: csrfOf((yield* page("/account", bobCookie)).text)
      }, { cookie: aliceCookie })
      expect(stolen.status).toBe(403)
      const notHers = yield* postForm("/account/bulk", { op: "lock", domain: ["acct-b1.com"], csrf }, {
        cookie: aliceCookie
      })
      expect(notHers.status).toBe(403)

      const lock = yield* postForm("/account/bulk", { op: "lock", domain: ["acct-a1.com", "acct-a2.com"], csrf }, {
        cookie: aliceCookie
      })
      expect(lock.status, lock.text).toBe(303)
      const jobPath = lock.headers.get("location")!
      expect(jobPath).toMatch(/^\/account\/jobs\/bulk_/)
      const job = yield* page(jobPath, aliceCookie)
      expect(job.status).toBe(200)
      expect(job.text).toContain(`data-domain="acct-a1.com"`)

      // A renew cart of Alice's (through the API), then Bob looks for both.
      const cart = yield* Effect.flatMap(
        apiClient({ headers: { cookie: aliceCookie } }),
        (client) =>
          client.portfolio.bulk({ path: { op: "renew" }, payload: { domains: ["acct-a2.com"], payload: { years: 1 } } })
      )
      expect(cart).toBeInstanceOf(BulkCart)
      const cartId = (cart as BulkCart).cartId!
      const aliceCart = yield* page(`/account/carts/${cartId}`, aliceCookie)
      expect(aliceCart.status).toBe(200)
      expect(aliceCart.text).toMatch(/\$\d+\.\d\d/)
      expect(aliceCart.text).toMatch(/\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC/)
      expect((yield* page("/account", aliceCookie)).text).toContain(`/account/carts/${cartId}`)

      expect((yield* page(jobPath, bobCookie)).status).toBe(404)
      expect((yield* page(`/account/carts/${cartId}`, bobCookie)).status).toBe(404)
      const bobs = yield* page("/account", bobCookie)
      expect(bobs.text).not.toContain(jobPath)
      expect(bobs.text).not.toContain(cartId)
      expect(bobs.text).not.toContain("acct-a1.com")
    }))
})
