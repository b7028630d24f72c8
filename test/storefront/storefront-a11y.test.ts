/**
 * Every storefront page in headless Chromium with axe-core (WCAG 2.x A/AA and best practices),
 * in light and in dark (prefers-color-scheme emulation), 390 px wide: 0 violations, no sideways
 * scrolling; and each page has one stylesheet, the site header and footer with their links
 * (test/support/PageChecks.ts), one `<main>`, `lang`, and its CSP nonce. Pages: home,
 * search results, a bad search, the market, a market page with a bad filter, a name page, a
 * non-name's 404, the offer form's answer, a lander, an unknown route's 404. Skipped, with a
 * message, where /usr/bin/chromium is absent.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { hasChromium, launch, VIEWPORTS, warnIfNoChromium } from "../support/Browser.js"
import { serverAtBaseUrl } from "../support/identity.js"
import { FOOTER_LINKS, frameOf, HEADER_LINKS, violationsOf } from "../support/PageChecks.js"
import { TestServer } from "../support/TestServer.js"

warnIfNoChromium("storefront-a11y")

describe.skipIf(!hasChromium)("storefront pages: axe in light and dark", () => {
  layer(
    serverAtBaseUrl({ RDAP_MODE: "sandbox", DEMO_LISTINGS: "true", TRUST_PROXY: "1" }),
    { timeout: 300_000 }
  )("axe", (it) => {
    it.scoped("0 axe violations and the shared layout on every page, light and dark", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* launch
        const results: Record<string, ReadonlyArray<string>> = {}
        for (const scheme of ["light", "dark"] as const) {
          const context = yield* Effect.promise(() =>
            browser.newContext({ viewport: VIEWPORTS.phone, colorScheme: scheme })
          )
          const page = yield* Effect.promise(() => context.newPage())
          const csp: Array<string> = []
          page.on("console", (m) =>
            m.type() === "error" && /Content.Security.Policy/i.test(m.text()) && csp.push(m.text()))
          const visit = (name: string, path: string, status: number) =>
            Effect.gen(function*() {
              const response = yield* Effect.promise(() =>
                page.goto(`${server.baseUrl}${path}`)
              )
              expect(response?.status(), `${name} ${path}`).toBe(status)
              const header = (yield* Effect.promise(() => response!.allHeaders()))["content-security-policy"] ?? ""
              yield* check(name, header)
            })
          const check = (name: string, header: string) =>
            Effect.gen(function*() {
              const frame = yield* frameOf(page)
              expect(frame, name).toMatchObject({
                lang: "en",
                styles: 1,
                mains: 1,
                brand: "Domain Marketplace",
                logo: true,
                headerLinks: HEADER_LINKS,
                footerLinks: FOOTER_LINKS
              })
              const nonce = yield* Effect.promise(() =>
                page.evaluate(() => (document.querySelector("style") as HTMLStyleElement | null)?.nonce ?? "")
              )
              expect(nonce, name).not.toBe("")
              expect(header, name).toContain(`'nonce-${nonce}'`)
              // 390 px wide (the phone viewport): nothing scrolls sideways.
              expect(frame.overflow, `${name}: horizontal overflow at 390 px`).toBeLessThanOrEqual(0)
              results[`${scheme} ${name}`] = yield* violationsOf(page)
            })

          yield* visit("home", "/", 200)
          yield* visit("search results", "/search?q=brightharbor.com", 200)
          yield* visit("bad search", "/search?q=%3Cnot%20a%20name%3E", 400)
          yield* visit("market", "/market?sort=price_asc", 200)
          yield* visit("market, bad filter", "/market?sort=cheapest", 400)
          yield* visit("name page", "/d/brightharbor.com", 200)
          yield* visit("not a name", "/d/%3Cx%3E", 404)

          // The offer form, filled and sent by keyboard-reachable fields.
          yield* Effect.promise(() => page.goto(`${server.baseUrl}/d/brightharbor.com`))
          yield* Effect.promise(() => page.fill("#amount", "900"))
          yield* Effect.promise(() => page.fill("#email", `${scheme}@example.test`))
          const [sent] = yield* Effect.promise(() =>
            Promise.all([
              page.waitForResponse((r) => r.url().endsWith("/offer")),
              page.click("#offer button[type=submit]")
            ])
          )
          expect(sent.status()).toBe(201)
          yield* Effect.promise(() => page.waitForLoadState())
          expect(yield* Effect.promise(() => page.textContent("h1"))).toBe("Offer sent")
          yield* check("offer sent", (yield* Effect.promise(() => sent.allHeaders()))["content-security-policy"] ?? "")

          // The lander: the host a trusted proxy forwards is a listed domain.
          yield* Effect.promise(() => page.setExtraHTTPHeaders({ "x-forwarded-host": "brightharbor.com" }))
          yield* visit("lander", "/", 200)
          expect(yield* Effect.promise(() => page.textContent("h1"))).toBe("brightharbor.com is for sale")
          yield* Effect.promise(() => page.setExtraHTTPHeaders({}))

          yield* visit("unknown route", "/no-such-page", 404)
          expect(csp).toEqual([])
          yield* Effect.promise(() => context.close())
        }
        const failing = Object.fromEntries(Object.entries(results).filter(([, v]) => v.length > 0))
        expect(failing).toEqual({})
        expect(Object.keys(results).length).toBe(20)
      }), { timeout: 300_000 })
  })
})
