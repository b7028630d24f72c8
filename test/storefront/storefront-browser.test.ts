/**
 * The storefront in a real browser (headless Chromium via playwright-core): at 390 px wide, by
 * keyboard only, a person searches from `/` and reads the results page, with no horizontal
 * scroll and no CSP violation. Screenshots go to test-results/storefront-*.png. Skipped, with a
 * message, where /usr/bin/chromium is absent. (axe-core is not in node_modules: no axe audit yet.)
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { hasChromium, launch, VIEWPORTS, warnIfNoChromium } from "../support/Browser.js"
import { serverAtBaseUrl } from "../support/identity.js"
import { TestServer } from "../support/TestServer.js"

warnIfNoChromium("storefront-browser")
const SHOTS = "test-results"

describe.skipIf(!hasChromium)("storefront in headless Chromium", () => {
  layer(serverAtBaseUrl({ RDAP_MODE: "sandbox", DEMO_LISTINGS: "true" }), { timeout: 120_000 })("storefront", (it) => {
    it.scoped("390 px, keyboard only: search from the home page, read the results; no overflow, no CSP report", () =>
      Effect.gen(function*() {
        Fs.mkdirSync(SHOTS, { recursive: true })
        const server = yield* TestServer
        const browser = yield* launch
        const context = yield* Effect.promise(() => browser.newContext({ viewport: VIEWPORTS.phone }))
        const page = yield* Effect.promise(() => context.newPage())
        const problems: Array<string> = []
        page.on("console", (m) => m.type() === "error" && problems.push(m.text()))
        page.on("pageerror", (e) => problems.push(String(e)))

        yield* Effect.promise(() => page.goto(`${server.baseUrl}/`))
        expect(yield* Effect.promise(() => page.title())).toBe("Find your domain name · Domain Marketplace")
        // The box has the focus on arrival; the keyboard alone searches.
        expect(yield* Effect.promise(() => page.evaluate(() => document.activeElement?.id))).toBe("q")
        yield* Effect.promise(() => page.keyboard.type("example.com"))
        yield* Effect.promise(() =>
          Promise.all([page.waitForURL(/\/search\?q=example\.com/), page.keyboard.press("Enter")])
        )
        const row = page.locator(`li[data-domain="example.com"]`)
        expect(yield* Effect.promise(() => row.getAttribute("data-state"))).toBe("reserved")
        const overflow = yield* Effect.promise(() =>
          page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        )
        expect(overflow).toBeLessThanOrEqual(0)
        // Tab reaches the box, the button, then the footer links: every control by keyboard (the
        // search island answered in place, so the focus is still in the box: Tab is the button).
        yield* Effect.promise(() => page.keyboard.press("Tab"))
        expect(yield* Effect.promise(() => page.evaluate(() => document.activeElement?.tagName))).toMatch(
          /^(A|INPUT|BUTTON)$/
        )
        yield* Effect.promise(() => page.screenshot({ path: `${SHOTS}/storefront-results-phone.png`, fullPage: true }))
        expect(problems).toEqual([])
      }))
  })
})
