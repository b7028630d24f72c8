/**
 * Headless Chromium for the page tests (Debian's /usr/bin/chromium through playwright-core).
 * Without it the browser tests skip with a message saying how to install it (.ci/run does).
 */
import { Effect } from "effect"
import * as Fs from "node:fs"
import { chromium } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"
/**
 * Whether this run can drive the browser; the browser's files skip without it. (`TEST_LEAVE_OUT=browser`
 * leaves them out of a run altogether: vitest.config.ts.)
 */
export const hasChromium = Fs.existsSync(CHROMIUM)

/** Warns once per test file when the browser is absent (the file's tests are then skipped). */
export const warnIfNoChromium = (file: string) => {
  if (!hasChromium) {
    console.warn(`[${file}] skipped: ${CHROMIUM} is absent (install it with: apt-get install -y chromium)`)
  }
}

/** How the tests and the front-end benchmark (bench/frontend.ts) start Chromium (NOTES.md). */
export const CHROMIUM_OPTIONS = {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run"
  ]
}

/** A browser for the scope, closed with it. */
export const launch = Effect.acquireRelease(
  Effect.promise(() => chromium.launch(CHROMIUM_OPTIONS)),
  (browser) => Effect.promise(() => browser.close())
)

/** Desktop and phone viewports for screenshots. */
export const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const
