/**
 * The search island (src/storefront/client/search.ts) in headless Chromium, as a person uses it:
 * typing into the box on `/` shows the queried name's row with its status (worded as the
 * server-rendered `/search` page words it), then the alternates; typing more replaces the rows
 * and cancels the previous stream (its slow upstream check is abandoned); over the search limit
 * the page says how long to wait; without JavaScript the form still submits to `/search`; axe
 * finds nothing; rows arriving move nothing (no layout shift).
 *
 * RDAP is a loopback stand-in: `.org` answers after 2.5 s, so the alternates arrive visibly later
 * than the primary. A listed name's row shows its buy-now price, as the results page does (the
 * island reads `/search/stream`, the pages' prices); after a 429 it searches again by itself. Each
 * browser context is its own client (X-Forwarded-For, trusted), so each
 * has its own search budget (`domain_search`, 4 a minute here).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import { gzipSync } from "node:zlib"
import type { Browser, Page } from "playwright-core"
import { hasChromium, launch, VIEWPORTS, warnIfNoChromium } from "../support/Browser.js"
import * as DelayedRdap from "../support/DelayedRdap.js"
import * as TestServer from "../support/TestServer.js"

warnIfNoChromium("search-island-browser")
const AXE_SOURCE = Fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
const LIMIT = 4
const SLOW_MS = 2_500

class Rdap extends Context.Tag("test/IslandRdap")<Rdap, DelayedRdap.DelayedRdapShape>() {}

const env = Layer.unwrapScoped(
  Effect.map(
    DelayedRdap.start({ io: { registered: ["taken.io"] }, net: {}, org: { delayMs: SLOW_MS } }),
    (rdap) =>
      Layer.merge(
        TestServer.layer({
          RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
          ALTERNATE_TLDS: "net,org",
          AVAILABILITY_UPSTREAM_TIMEOUT: "10 seconds",
          TRUST_PROXY: "true",
          RATE_LIMITS: JSON.stringify({ domain_search: LIMIT })
        }),
        Layer.succeed(Rdap, rdap)
      )
  )
)

/** A person's browser: its own client address, phone-sized, every console error and page error kept. */
const personAt = (browser: Browser, ip: string, options: { readonly javaScriptEnabled?: boolean } = {}) =>
  Effect.gen(function*() {
    const context = yield* Effect.acquireRelease(
      Effect.promise(() =>
        browser.newContext({
          viewport: VIEWPORTS.phone,
          extraHTTPHeaders: { "x-forwarded-for": ip },
          javaScriptEnabled: options.javaScriptEnabled ?? true
        })
      ),
      (c) => Effect.promise(() => c.close())
    )
    const page = yield* Effect.promise(() => context.newPage())
    const problems: Array<string> = []
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()))
    page.on("pageerror", (e) => problems.push(String(e)))
    return { context, page, problems }
  })

const run = <A>(f: () => Promise<A>) => Effect.promise(f)

/** The box has the focus on arrival (autofocus), so typing goes into it (on a loaded machine, a moment after load). */
const boxFocused = (page: Page) =>
  run(() => page.waitForFunction(() => document.activeElement?.id === "q", undefined, { timeout: 5_000 }))

/** What a person reads in the row of `domain` (once it is there). */
const rowText = (page: Page, domain: string) =>
  run(() => page.locator(`#results li[data-domain="${domain}"]`).innerText({ timeout: 10_000 }))

/** The names listed in the results region, in order (answered or still being checked). */
const listed = (page: Page) =>
  run(() =>
    page.$$eval(
      "#results li",
      (lis) => lis.map((li) => li.getAttribute("data-domain") ?? li.getAttribute("data-pending"))
    )
  )

const axeViolations = (page: Page) =>
  run(async () => {
    await page.evaluate(AXE_SOURCE)
    const result = await page.evaluate(() =>
      (globalThis as any).axe.run(document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] }
      })
    ) as { violations: ReadonlyArray<{ id: string; nodes: ReadonlyArray<{ target: ReadonlyArray<string> }> }> }
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
  })

/** Layout shifts not caused by the person's own input (what CLS counts), summed since the page loaded. */
const OBSERVE_SHIFTS =
  `window.__shifts = 0; new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts += e.value }).observe({ type: "layout-shift", buffered: true })`

describe.skipIf(!hasChromium)("the search island in headless Chromium", () => {
  layer(env, { timeout: 120_000 })("island", (it) => {
    it.scoped(
      "typing shows the primary row first, with the results page's wording; typing more replaces the rows and cancels the old stream",
      () =>
        Effect.gen(function*() {
          const server = yield* TestServer.TestServer
          const rdap = yield* Rdap
          const browser = yield* launch
          const { page, problems } = yield* personAt(browser, "10.33.0.1")
          yield* run(() => page.addInitScript(OBSERVE_SHIFTS))
          yield* run(() => page.goto(`${server.baseUrl}/`))
          yield* boxFocused(page)

          yield* run(() => page.keyboard.type("quiet.io", { delay: 40 }))
          // The queried name answers (RDAP: not registered) while .org is still being checked.
          const primary = yield* rowText(page, "quiet.io")
          expect(primary).toMatch(/^quiet\.io\s+Available/)
          expect(yield* listed(page)).toEqual(["quiet.io", "quiet.net", "quiet.org"])
          expect(yield* run(() => page.locator(`#results li[data-pending="quiet.org"]`).innerText())).toContain(
            "Checking…"
          )
          // The address bar holds the shareable results page of what was typed.
          expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/search?q=quiet.io")

          // Typing more (the cursor moved back before ".io"): the rows of the longer name replace the old ones.
          for (let i = 0; i < 3; i++) yield* run(() => page.keyboard.press("ArrowLeft"))
          yield* run(() => page.keyboard.type("harbor", { delay: 40 }))
          expect(yield* rowText(page, "quietharbor.io")).toMatch(/^quietharbor\.io\s+Available/)
          expect(yield* listed(page)).toEqual(["quietharbor.io", "quietharbor.net", "quietharbor.org"])
          expect(new URL(page.url()).search).toBe("?q=quietharbor.io")
          // The slow alternate of the new name arrives in place; the old name's never shows up.
          yield* rowText(page, "quietharbor.org")
          expect(yield* listed(page)).toEqual(["quietharbor.io", "quietharbor.net", "quietharbor.org"])
          // The old stream was cancelled: its slow upstream check was abandoned, not answered.
          const oldOrg = rdap.lookups().filter((l) => l.domain === "quiet.org")
          expect(oldOrg.map((l) => l.state)).toEqual(["abandoned"])

          // Each row reads exactly as the server-rendered results page words it.
          const serverPage = yield* personAt(browser, "10.33.0.2", { javaScriptEnabled: false })
          yield* run(() => serverPage.page.goto(`${server.baseUrl}/search?q=quietharbor.io`))
          for (const domain of ["quietharbor.io", "quietharbor.net", "quietharbor.org"]) {
            expect(yield* rowText(page, domain), domain).toBe(yield* rowText(serverPage.page, domain))
          }

          // Rows arriving moved nothing on the page (CLS, shifts after input excluded as CLS does).
          expect(yield* run(() => page.evaluate(() => (window as any).__shifts as number))).toBe(0)
          // Keyboard focus is visible: the box still has it, with the focus ring.
          const ring = yield* run(() =>
            page.evaluate(() => {
              const el = document.activeElement as HTMLElement
              return { id: el.id, outline: getComputedStyle(el).outlineStyle, visible: el.matches(":focus-visible") }
            })
          )
          expect(ring).toEqual({ id: "q", outline: "solid", visible: true })
          expect(yield* axeViolations(page)).toEqual([])
          expect(problems).toEqual([])
        }),
      { timeout: 60_000 }
    )

    it.scoped("over the search limit the page says how long to wait, and stays usable", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.TestServer
        const browser = yield* launch
        const { context, page, problems } = yield* personAt(browser, "10.33.0.3")
        yield* run(() => page.goto(`${server.baseUrl}/`))
        yield* boxFocused(page)
        // This client has already spent its budget on other searches. The limit's window is fixed:
        // when it turns between the spending and the typing, the search is answered, and the
        // client spends the new window's budget and types again.
        let words = ""
        for (let attempt = 0; attempt < 3 && words === ""; attempt++) {
          for (let i = 0; i < LIMIT; i++) {
            // A bad query is refused at once and counts like any search (the edge counts first).
            const spent = yield* run(() =>
              context.request.post(`${server.baseUrl}/api/domain/search`, {
                data: { q: "" },
                headers: { "x-forwarded-for": "10.33.0.3" }
              })
            )
            expect([400, 429]).toContain(spent.status())
          }
          // A new name each time: the island does not search again for the name it shows.
          yield* run(() => page.locator("#q").fill(""))
          const name = `onemore${attempt || ""}.io`
          yield* run(() => page.keyboard.type(name, { delay: 40 }))
          // This name's row, not the rows an earlier attempt left on the page.
          const outcome = page.locator(`#results [role=alert], #results li[data-domain="${name}"]`)
          yield* run(() => outcome.first().waitFor({ timeout: 10_000 }))
          const wait = page.locator("#results [role=alert]")
          if ((yield* run(() => wait.count())) > 0) words = yield* run(() => wait.innerText())
        }
        expect(words).toMatch(/^You have searched a lot in a short time\. Try again in \d+ seconds?\.$/)
        const seconds = Number(/in (\d+) second/.exec(words)![1])
        expect(seconds).toBeGreaterThan(0)
        expect(seconds).toBeLessThanOrEqual(60)
        // Still the page, with its box: nothing broken, nothing thrown.
        expect(yield* run(() => page.title())).toBe("Find your domain name · Domain Marketplace")
        expect(yield* run(() => page.locator("#q").inputValue())).toMatch(/^onemore\d?\.io$/)
        expect(yield* axeViolations(page)).toEqual([])
        // The failed 429 fetch is the browser's own console line; nothing else went wrong.
        expect(problems.filter((p) => !/status of 429/.test(p))).toEqual([])
      }))

    it.scoped("a listed name reads as the results page reads it (its buy-now price); after a wait the island searches again", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.TestServer
        const sql = yield* SqlClient.SqlClient
        yield* sql`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents)
          values ('lst_island_shopfront', 'live', 'shopfront.io', 'shopfront.io', 'io', 'shopfront', 420000, 190000)
          on conflict (environment, domain) do nothing`.pipe(Effect.orDie)
        const browser = yield* launch
        const { page, problems } = yield* personAt(browser, "10.33.0.5")
        // The first stream is refused as over the limit (Retry-After: 1); the island waits, then
        // searches again by itself, the name still in the box.
        let refused = 0
        yield* run(() =>
          page.route("**/search/stream?*", (route) =>
            refused++ === 0
              ? route.fulfill({
                status: 429,
                headers: { "retry-after": "1", "content-type": "application/json" },
                body: JSON.stringify({ error: { code: "rate_limited", message: "slow down" } })
              })
              : route.continue())
        )
        yield* run(() => page.goto(`${server.baseUrl}/`))
        yield* boxFocused(page)
        yield* run(() => page.keyboard.type("shopfront.io", { delay: 40 }))
        const wait = yield* run(() => page.locator("#results [role=alert]").innerText({ timeout: 10_000 }))
        expect(wait).toBe("You have searched a lot in a short time. Try again in 1 second.")
        const row = yield* rowText(page, "shopfront.io")
        expect(refused).toBe(2)
        expect(row).toContain("$4,200.00")
        expect(row).not.toContain("1,900")

        const serverPage = yield* personAt(browser, "10.33.0.6", { javaScriptEnabled: false })
        yield* run(() => serverPage.page.goto(`${server.baseUrl}/search?q=shopfront.io`))
        expect(row).toBe(yield* rowText(serverPage.page, "shopfront.io"))
        expect(problems.filter((p) => !/status of 429/.test(p))).toEqual([])
      }))

    it.effect("the page loads the island by its content hash, with its CSP nonce; the file is cached for a year", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.TestServer
        const home = yield* run(() => fetch(`${server.baseUrl}/`))
        const csp = home.headers.get("content-security-policy") ?? ""
        const tag = /<script nonce="([^"]+)" src="(\/assets\/search\.([0-9a-f]{16})\.js)" defer><\/script>/.exec(
          yield* run(() => home.text())
        )
        expect(tag, "the island's script tag").not.toBeNull()
        expect(csp).toContain(`script-src 'nonce-${tag![1]}'`)
        expect(csp).toContain("connect-src 'self'")
        const script = yield* run(() => fetch(`${server.baseUrl}${tag![2]}`))
        expect(script.status).toBe(200)
        expect(script.headers.get("content-type")).toMatch(/^text\/javascript/)
        expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
        const bytes = Buffer.from(yield* run(() => script.arrayBuffer()))
        expect(createHash("sha256").update(bytes).digest("hex").slice(0, 16)).toBe(tag![3])
        expect(gzipSync(bytes).length).toBeLessThan(30 * 1024)
        const stale = yield* run(() => fetch(`${server.baseUrl}/assets/search.0123456789abcdef.js`))
        expect(stale.status).toBe(404)
        expect((yield* run(() => stale.json())).error.code).toBe("not_found")
      }))

    it.scoped("without JavaScript the box submits to the server-rendered results page", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.TestServer
        const browser = yield* launch
        const { page, problems } = yield* personAt(browser, "10.33.0.4", { javaScriptEnabled: false })
        yield* run(() => page.goto(`${server.baseUrl}/`))
        yield* run(() => page.locator("#q").fill("taken.io"))
        yield* run(() => Promise.all([page.waitForURL(/\/search\?q=taken\.io$/), page.keyboard.press("Enter")]))
        expect(yield* rowText(page, "taken.io")).toMatch(/^taken\.io\s+Registered/)
        expect(problems).toEqual([])
      }))
  })
})
