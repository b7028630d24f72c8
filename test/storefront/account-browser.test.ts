/**
 * The account pages in headless Chromium, as a person uses them: sign up, sign out, sign in again
 * (coming back to /account), tick names and lock them, and watch the job's page reach "Done"
 * through the bulk island (client/bulk.ts) without reloading; 0 axe violations on every account
 * page in light and dark (the journey is walked once, each page checked in both schemes where it
 * stands), nothing scrolling sideways at 390 px, no CSP refusal. Skipped, with a message, where
 * /usr/bin/chromium is absent.
 *
 * The person's names are recorded as an operator records them (`user add-domains`: rows of
 * user_domains); the registrar is the loopback Realtime Register.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { hasChromium, launch, warnIfNoChromium } from "../support/Browser.js"
import { phonePageInEveryScheme } from "../support/PageChecks.js"
import { rtrSettings, startRtrServer, TEST_RTR_ACCOUNT } from "../support/RtrServer.js"
import * as TestServer from "../support/TestServer.js"

warnIfNoChromium("account-browser")

const env = Layer.unwrapScoped(
  Effect.map(
    startRtrServer({ ...TEST_RTR_ACCOUNT, tlds: {}, anyDomain: true }),
    (rtr) => TestServer.layer({ ...rtrSettings(rtr), RATE_LIMITS: JSON.stringify({ auth_login: 1000 }) })
  )
)

const run = <A>(f: () => Promise<A>) => Effect.promise(f)
const text = (page: Page, selector: string) => run(() => page.textContent(selector).then((t) => (t ?? "").trim()))

describe.skipIf(!hasChromium)("account pages in Chromium", () => {
  layer(env, { timeout: 240_000 })("account", (it) => {
    it.scoped(
      "sign up, sign in, run a bulk job to done; axe clean in light and dark at 390 px",
      () =>
        Effect.gen(function*() {
          const { baseUrl } = yield* TestServer.TestServer
          const sql = yield* SqlClient.SqlClient
          const browser = yield* launch

          const { check, page, problems, results } = yield* phonePageInEveryScheme(browser)
          const submit = (selector: string) => run(() => Promise.all([page.waitForNavigation(), page.click(selector)]))

          // Anonymous: the header says "Sign in"; from there, sign up.
          yield* run(() => page.goto(`${baseUrl}/`))
          yield* submit("header.site a[href='/signin']")
          expect(new URL(page.url()).pathname).toBe("/signin")
          yield* check("sign-in")
          yield* submit("main a[href^='/signup']")
          yield* check("sign-up")
          const email = `browser-${Date.now()}@example.test`
          const password = "correct horse battery"
          yield* run(async () => {
            await page.fill("#email", email)
            await page.fill("#password", password)
          })
          yield* submit("main button[type=submit]")
          expect(new URL(page.url()).pathname).toBe("/account")
          expect(yield* text(page, "h1")).toBe("Your account")
          yield* check("account, no names")

          // Sign out, then sign in again and come back to the account page.
          yield* submit("form[action='/signout'] button")
          expect(new URL(page.url()).pathname).toBe("/")
          yield* run(() => page.goto(`${baseUrl}/account`))
          expect(new URL(page.url()).pathname).toBe("/signin")
          yield* run(async () => {
            await page.fill("#email", email)
            await page.fill("#password", "wrong password!")
          })
          yield* submit("main button[type=submit]")
          expect(yield* text(page, "[role=alert]")).toBe("Wrong e-mail or password.")
          yield* check("sign-in, wrong password")
          // The refusal is a 401 page, which Chromium logs as a failed load: expected, so forgotten.
          expect(problems.splice(0).every((p) => /status of 401/.test(p))).toBe(true)
          yield* run(async () => {
            await page.fill("#password", password)
          })
          yield* submit("main button[type=submit]")
          expect(new URL(page.url()).pathname).toBe("/account")

          // An operator records the person's names (`user add-domains`).
          const names = ["account-one.com", "account-two.com"]
          yield* sql`insert into user_domains (domain, user_id)
          select d, u.id from users u, unnest(${names}::text[]) d where u.email = ${email}`
          yield* run(() => page.reload())
          yield* check("account, portfolio")
          for (const name of names) yield* run(() => page.check(`input[value='${name}']`))
          yield* run(() => page.selectOption("#op", "lock").then(() => undefined))
          yield* submit("form[action='/account/bulk'] button[type=submit]")
          expect(new URL(page.url()).pathname).toMatch(/^\/account\/jobs\/bulk_/)
          const shownFirst = yield* text(page, "[data-testid=job-status]")
          if (shownFirst !== "Done") {
            // Still running when served: the page carries the island (a hashed, cached script).
            expect(yield* run(() => page.locator("script[src^='/assets/bulk.']").count())).toBe(1)
          }
          console.info(`[account-browser] the job page first showed "${shownFirst}"`)
          const navigations: Array<string> = []
          page.on("framenavigated", (f) => f === page.mainFrame() && navigations.push(f.url()))
          yield* check("job page")
          // The island updates the page in place until the job is done (no reload).
          yield* run(() =>
            page.waitForFunction(
              () => document.querySelector("[data-job-id]")?.getAttribute("data-status") === "done",
              undefined,
              { timeout: 30_000 }
            )
          )
          expect(navigations, `first shown "${shownFirst}"`).toEqual([])
          expect(yield* text(page, "[data-testid=job-status]")).toBe("Done")
          expect(yield* text(page, "[data-field=counts]")).toBe("2 of 2 names finished, 0 failed")
          for (const name of names) {
            expect(yield* text(page, `li[data-domain='${name}'] .status`)).toBe("Done")
          }
          yield* check("job page, done")

          // Back on the account page the job is listed, done, and the names are locked.
          yield* run(() => page.goto(`${baseUrl}/account`))
          expect(yield* text(page, "main")).toContain("Lock: 2 names")
          expect(yield* text(page, "main")).toContain("Locked · auto-renew")
          yield* check("account, with a job")
          expect(problems).toEqual([])
          const failing = Object.fromEntries(Object.entries(results).filter(([, v]) => v.length > 0))
          expect(failing).toEqual({})
          expect(Object.keys(results).length).toBe(16)
        }),
      { timeout: 240_000 }
    )
  })
})
