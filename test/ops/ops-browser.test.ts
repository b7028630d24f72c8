/**
 * The operator console in headless Chromium, as an operator uses it: sign in from the page /ops
 * sends them to, come back to /ops, open every section, clear a held order with its button (back
 * on the orders page without it) and find the action in the audit log under their e-mail; 0 axe
 * violations on every console page in light and dark (the journey is walked once, each page
 * checked in both schemes where it stands), nothing scrolling sideways at 390 px, no CSP refusal.
 * Skipped, with a message, where /usr/bin/chromium is absent.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { hasChromium, launch, warnIfNoChromium } from "../support/Browser.js"
import { request } from "../support/http.js"
import { createTestUser } from "../support/identity.js"
import { phonePageInEveryScheme } from "../support/PageChecks.js"
import { buy, createPartner, seedListings } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

warnIfNoChromium("ops-browser")

const run = <A>(f: () => Promise<A>) => Effect.promise(f)
const text = (page: Page, selector: string) => run(() => page.textContent(selector).then((t) => (t ?? "").trim()))

const SECTIONS = [
  "/ops/orders",
  "/ops/brokerage",
  "/ops/offers",
  "/ops/deliveries",
  "/ops/carts",
  "/ops/money",
  "/ops/money/verify",
  "/ops/partners",
  "/ops/audit"
]

describe.skipIf(!hasChromium)("operator console in Chromium", () => {
  layer(
    TestServer.layer({ REVIEW_THRESHOLD_CENTS: "500000", RATE_LIMITS: JSON.stringify({ auth_login: 1000 }) }),
    { timeout: 240_000 }
  )("ops", (it) => {
    it.scoped(
      "sign in, every section, clear a held order by its button, find it in the audit log; axe clean light and dark at 390 px",
      () =>
        Effect.gen(function*() {
          const { baseUrl } = yield* TestServer.TestServer
          const browser = yield* launch
          const cred = yield* createPartner({ name: "Browser partner" })
          yield* seedListings([
            { domain: "ops-held.com", bin: 600_000 },
            { domain: "ops-offer.io", bin: 250_000, environment: "live" }
          ])
          const offer = yield* request("/api/market/offers", {
            method: "POST",
            body: { domain: "ops-offer.io", amount_cents: 200_000, email: "buyer@example.test" }
          })
          expect(offer.status, offer.text).toBe(201)

          const held = yield* buy(cred, "ops-held.com", 600_000)
          const operator = yield* createTestUser({ role: "operator" })
          const { check, page, problems, results } = yield* phonePageInEveryScheme(browser)
          const submit = (selector: string) => run(() => Promise.all([page.waitForNavigation(), page.click(selector)]))

          // Signed out, /ops asks to sign in and comes back.
          yield* run(() => page.goto(`${baseUrl}/ops`))
          expect(new URL(page.url()).pathname).toBe("/signin")
          yield* run(async () => {
            await page.fill("#email", operator.email)
            await page.fill("#password", operator.password)
          })
          yield* submit("main button[type=submit]")
          expect(new URL(page.url()).pathname).toBe("/ops")
          expect(yield* text(page, "h1")).toBe("What waits for a person")
          yield* check("/ops")
          for (const path of SECTIONS) {
            yield* submit(
              `nav[aria-label='Operator console'] a[href='${path === "/ops/money/verify" ? "/ops/money" : path}']`
            )
            if (path === "/ops/money/verify") yield* submit("main a[href='/ops/money/verify']")
            expect(new URL(page.url()).pathname).toBe(path)
            yield* check(path)
          }

          // One action end to end: clear the held order; it leaves the queue and is in the log.
          yield* submit("nav[aria-label='Operator console'] a[href='/ops/orders']")
          yield* submit(`li[data-order='${held}'] button[aria-label^='Clear']`)
          expect(new URL(page.url()).pathname).toBe("/ops/orders")
          expect(yield* run(() => page.locator(`ol[aria-label='Held orders'] li[data-order='${held}']`).count()))
            .toBe(0)
          yield* check("orders, cleared")
          yield* run(() => page.goto(`${baseUrl}/ops/audit?actor=${encodeURIComponent(operator.email)}`))
          expect(yield* text(page, "ol[aria-label='Audit entries'] li .name")).toBe("order.clear-review")
          expect(yield* run(() => page.inputValue("#audit-actor"))).toBe(operator.email)
          yield* check("audit, filtered")
          expect(problems).toEqual([])
          const failing = Object.fromEntries(Object.entries(results).filter(([, v]) => v.length > 0))
          expect(failing).toEqual({})
          expect(Object.keys(results).length).toBe(24)
        }),
      { timeout: 240_000 }
    )
  })
})
