/**
 * The one design (src/platform/http/Html.ts, PageStyle.ts) on every page outside the storefront's
 * own (those are test/storefront/storefront-a11y.test.ts): the terms, privacy and contact pages,
 * the buy page, the payment page, the bank's confirmation step, the receipt, checkout and referral
 * error pages, the brokerage progress page, OAuth sign-in, consent and error pages. In headless
 * Chromium, light and dark, 390 px wide: 0 axe violations, nothing scrolls sideways, the site
 * header (name, logo, main links) and footer (Terms, Privacy, Contact…) on each, no CSP refusal;
 * the receipt and the progress page show times in words and money with its currency. Skipped,
 * with a message, where /usr/bin/chromium is absent.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { hasChromium, launch, VIEWPORTS, warnIfNoChromium } from "../../support/Browser.js"
import { authorizeQuery, createTestUser, pkcePair, registerClient, serverAtBaseUrl } from "../../support/identity.js"
import { FOOTER_LINKS, frameOf, HEADER_LINKS, SIGNED_IN_HEADER_LINKS, violationsOf } from "../../support/PageChecks.js"
import { createPartner, seedListings, signed } from "../../support/PartnerKit.js"
import { TestServer } from "../../support/TestServer.js"

warnIfNoChromium("design-browser")

/** "27 Nov 2026, 16:18 UTC" */
const TIME_IN_WORDS = /^\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d{2}:\d{2} UTC$/

const text = (page: Page, selector: string) => Effect.promise(() => page.textContent(selector).then((t) => t ?? ""))

describe.skipIf(!hasChromium)("one design on every page: axe in light and dark at 390 px", () => {
  layer(serverAtBaseUrl({ CONTACT_EMAIL: "help@shop.example" }), { timeout: 300_000 })("design", (it) => {
    it.scoped(
      "info, checkout, receipt, progress, OAuth and error pages share the frame, 0 violations",
      () =>
        Effect.gen(function*() {
          const { baseUrl } = yield* TestServer
          const browser = yield* launch
          yield* seedListings([
            { domain: "design-light.com", environment: "live", bin: 129_900 },
            { domain: "design-dark.com", environment: "live", bin: 129_900 }
          ])
          const broker = yield* createPartner({ scopes: ["broker"] })
          const brokerage = yield* signed(broker, "POST", "/api/partner/v1/brokerage", {
            body: { domain: "design-progress.com", tier: "managed", buyer_email: "b@example.org", budget: 500_000 }
          })
          expect(brokerage.status, brokerage.text).toBe(201)
          const progress = new URL(brokerage.json.progress_url)
          const user = yield* createTestUser()
          const clientId = yield* registerClient(undefined, "Design Test App")
          const authorizeUrl = `${baseUrl}/oauth/authorize?${
            authorizeQuery({ clientId, challenge: pkcePair().challenge, scopes: ["pricing:read"] })
          }`

          const results: Record<string, ReadonlyArray<string>> = {}
          for (const scheme of ["light", "dark"] as const) {
            const context = yield* Effect.promise(() =>
              browser.newContext({ viewport: VIEWPORTS.phone, colorScheme: scheme })
            )
            const page = yield* Effect.promise(() => context.newPage())
            const csp: Array<string> = []
            page.on(
              "console",
              (m) => m.type() === "error" && /Content.Security.Policy/i.test(m.text()) && csp.push(m.text())
            )

            /** The page as loaded now: the shared frame, no sideways scroll, axe's verdict. */
            const check = (name: string) =>
              Effect.gen(function*() {
                const frame = yield* frameOf(page)
                // Signed in (the OAuth consent page): "Account" in the header, else "Sign in".
                const cookies = yield* Effect.promise(() => context.cookies())
                const signedIn = cookies.some((c) => c.name === "mp_session")
                expect(frame, `${scheme} ${name}`).toMatchObject({
                  lang: "en",
                  styles: 1,
                  mains: 1,
                  brand: "Domain Marketplace",
                  logo: true,
                  headerLinks: signedIn ? SIGNED_IN_HEADER_LINKS : HEADER_LINKS,
                  footerLinks: FOOTER_LINKS
                })
                expect(frame.overflow, `${scheme} ${name}: horizontal overflow at 390 px`).toBeLessThanOrEqual(0)
                results[`${scheme} ${name}`] = yield* violationsOf(page)
              })
            const visit = (name: string, url: string, status: number) =>
              Effect.gen(function*() {
                const response = yield* Effect.promise(() =>
                  page.goto(url.startsWith("http") ? url : `${baseUrl}${url}`)
                )
                expect(response?.status(), `${scheme} ${name}`).toBe(status)
                yield* check(name)
              })
            const click = (selector: string) =>
              Effect.promise(() => Promise.all([page.waitForNavigation(), page.click(selector)]))

            yield* visit("terms", "/terms", 200)
            expect(yield* text(page, "h1")).toBe("Terms of sale")
            yield* visit("privacy", "/privacy", 200)
            yield* visit("contact", "/contact", 200)
            expect(yield* text(page, "main")).toContain("help@shop.example")

            // The buy page, its payment page, the bank's confirmation step and the receipt.
            const domain = `design-${scheme}.com`
            yield* visit("buy page", `/buy/${domain}`, 200)
            expect(yield* text(page, "[data-testid=price]")).toBe("$1,299.00")
            yield* click("button[type=submit]")
            expect(yield* text(page, "h1")).toBe(`Buy ${domain}`)
            yield* check("payment page")
            yield* Effect.promise(async () => {
              await page.fill("#email", `${scheme}@example.org`)
              await page.fill("#name", "Ada Lovelace")
              await page.fill("#country", "GB")
              await page.fill("#card_number", "4000 0000 0000 3220")
              await page.fill("#card_exp", "12/34")
              await page.fill("#card_cvc", "123")
            })
            yield* click("button[type=submit]")
            expect(yield* text(page, "h1")).toBe("Confirm your payment")
            yield* check("confirm step")
            yield* click("button[value=confirm]")
            yield* Effect.promise(() => page.waitForSelector("text=Payment received"))
            yield* check("receipt")
            expect(yield* text(page, "[data-testid=paid-at]")).toMatch(TIME_IN_WORDS)
            expect(yield* text(page, "[data-testid=price]")).toBe("$1,299.00")

            yield* visit("checkout link error", "/checkout?pt=not-a-token", 400)
            yield* visit("not for sale", "/buy/design-unlisted.com", 404)
            yield* visit("unknown referral link", "/r/no-such-code", 404)

            yield* visit("brokerage progress", `${progress.pathname}${progress.search}`, 200)
            const times = yield* Effect.promise(() =>
              page.$$eval("ol.history time", (els) => els.map((e) => e.textContent))
            )
            expect(times.length).toBeGreaterThan(0)
            for (const t of times) expect(t).toMatch(TIME_IN_WORDS)

            yield* visit("OAuth sign-in", authorizeUrl, 200)
            yield* Effect.promise(async () => {
              await page.fill("#email", user.email)
              await page.fill("#password", user.password)
            })
            yield* click("button[type=submit]")
            expect(yield* text(page, "h1")).toBe("Authorize Design Test App")
            yield* check("OAuth consent")
            yield* visit("OAuth error", "/oauth/authorize?client_id=nobody", 400)

            expect(csp, scheme).toEqual([])
            yield* Effect.promise(() => context.close())
          }
          const failing = Object.fromEntries(Object.entries(results).filter(([, v]) => v.length > 0))
          expect(failing).toEqual({})
          expect(Object.keys(results).length).toBe(28)
        }),
      { timeout: 300_000 }
    )
  })
})
