/**
 * What every page of the service must be, read from a loaded page in headless Chromium: axe-core's
 * violations (WCAG 2.x A/AA and best practices, run through the devtools protocol so the page's
 * CSP stays on), and the shared frame a reader sees (the site header and footer with their links,
 * one `<main>`, one stylesheet, `lang`, nothing scrolling sideways).
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import type { Browser, Page } from "playwright-core"
import { VIEWPORTS } from "./Browser.js"

const AXE_SOURCE = Fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

interface AxeViolation {
  readonly id: string
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>
}

/** axe's violations of the page as loaded, one line each ("rule: help (targets)"). */
export const violationsOf = (page: Page) =>
  Effect.promise(async () => {
    // Once per document: a second check of the same page (the other scheme) reuses it.
    if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(AXE_SOURCE)
    const result = await page.evaluate(() =>
      (globalThis as any).axe.run(document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] }
      })
    ) as { violations: ReadonlyArray<AxeViolation> }
    return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)
  })

const SITE_LINKS = [
  ["Search", "/"],
  ["Market", "/market"],
  ["Docs", "/docs/storefront.md"]
]

/** The header's links, as a reader without a session sees them (text → where it goes). */
export const HEADER_LINKS = [...SITE_LINKS, ["Sign in", "/signin"]]

/** The header's links for a reader with a session. */
export const SIGNED_IN_HEADER_LINKS = [...SITE_LINKS, ["Account", "/account"]]

/** The footer's links: every page of the site, Terms, Privacy and Contact included. */
export const FOOTER_LINKS = [
  ...SITE_LINKS,
  ["Account", "/account"],
  ["API", "/docs"],
  ["Terms", "/terms"],
  ["Privacy", "/privacy"],
  ["Contact", "/contact"]
]

/** The frame every page shares, read from the DOM (sizes at the page's own viewport). */
export const frameOf = (page: Page) =>
  Effect.promise(() =>
    page.evaluate(() => {
      const linksIn = (selector: string) =>
        Array.from(document.querySelectorAll<HTMLAnchorElement>(`${selector} a`)).map((a) => [
          (a.textContent ?? "").trim(),
          a.getAttribute("href") ?? ""
        ])
      const brand = document.querySelector("header.site a.brand")
      return {
        lang: document.documentElement.lang,
        styles: document.querySelectorAll("style, link[rel=stylesheet]").length,
        mains: document.querySelectorAll("main").length,
        brand: (brand?.textContent ?? "").trim(),
        logo: brand?.querySelector("svg") !== null && brand?.querySelector("svg") !== undefined,
        headerLinks: linksIn("header.site nav"),
        footerLinks: linksIn("footer.site nav"),
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth
      }
    })
  )

/** The colour schemes every page is checked in (PageStyle's tokens: light, and dark by media query). */
export const SCHEMES = ["light", "dark"] as const
export type Scheme = typeof SCHEMES[number]

/**
 * A phone-sized (390 px) page in `scheme`, closed with the scope, as the page tests drive one:
 * every console error and page error kept in `problems`; `check(label)` asserts the frame (one
 * `<main>`, nothing scrolling sideways) and answers axe's violations.
 */
export const phonePage = (browser: Browser, scheme: Scheme) =>
  Effect.gen(function*() {
    const context = yield* Effect.acquireRelease(
      Effect.promise(() => browser.newContext({ viewport: VIEWPORTS.phone, colorScheme: scheme })),
      (c) => Effect.promise(() => c.close())
    )
    const page = yield* Effect.promise(() => context.newPage())
    const problems: Array<string> = []
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()))
    page.on("pageerror", (e) => problems.push(String(e)))
    const check = (label: string) =>
      Effect.gen(function*() {
        const frame = yield* frameOf(page)
        expect(frame.mains, label).toBe(1)
        expect(frame.overflow, `${label}: horizontal overflow at 390 px`).toBeLessThanOrEqual(0)
        return yield* violationsOf(page)
      })
    return { page, problems, check }
  })

/**
 * A phone page for walking a journey once while checking each page in every scheme: `check(name)`
 * runs phonePage's check in light, then dark (switching `prefers-color-scheme` on the loaded page,
 * back to light afterwards), and records axe's violations in `results` under `light <name>` and
 * `dark <name>`, so a violation in either scheme alone shows up there.
 */
export const phonePageInEveryScheme = (browser: Browser) =>
  Effect.gen(function*() {
    const { check: checkIn, page, problems } = yield* phonePage(browser, SCHEMES[0])
    const results: Record<string, ReadonlyArray<string>> = {}
    const emulate = (colorScheme: Scheme) => Effect.promise(() => page.emulateMedia({ colorScheme }))
    const check = (name: string) =>
      Effect.gen(function*() {
        for (const scheme of SCHEMES) {
          yield* emulate(scheme)
          results[`${scheme} ${name}`] = yield* checkIn(`${scheme} ${name}`)
        }
      }).pipe(Effect.ensuring(emulate(SCHEMES[0])))
    return { page, problems, check, results }
  })
