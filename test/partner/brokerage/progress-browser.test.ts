/**
 * The buyer's progress page in a real browser (headless Chromium via playwright-core): the
 * progress link of a sandbox case shows the domain, the current status in plain words, the steps
 * and the history, with no script and nothing about the partner; a tampered link shows the 400
 * error page. Screenshots (desktop and phone) under test-results/. Skipped, with a message,
 * where /usr/bin/chromium is absent (`apt-get install -y chromium`).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { hasChromium, launch, warnIfNoChromium } from "../../support/Browser.js"
import { post } from "../../support/http.js"
import { createPartner, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

warnIfNoChromium("progress-browser")

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
const SHOTS = "test-results/brokerage"

describe.skipIf(!hasChromium)("brokerage progress page in headless Chromium", () => {
  layer(TestServer.layer(), { timeout: 120_000 })("progress", (it) => {
    it.scoped("status and timeline in plain words, desktop and phone; a tampered link is the 400 page", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer.TestServer
        const cred = yield* createPartner({ scopes: ["broker"] })
        const created = yield* signed(cred, "POST", "/api/partner/v1/brokerage", {
          body: {
            domain: "progress-page.com",
            tier: "managed",
            buyer_email: "buyer@example.org",
            budget: 750_000,
            notes: "seller is Jane Roe"
          }
        })
        expect(created.status, created.text).toBe(201)
        for (const note of ["looked up the holder", "wrote to Jane Roe"]) {
          expect(
            (yield* post(
              `/api/admin/brokerage/${created.json.id}/advance?note=${encodeURIComponent(note)}`,
              undefined,
              ADMIN
            )).status
          ).toBe(200)
        }
        const link = new URL(created.json.progress_url)
        const url = `${baseUrl}${link.pathname}${link.search}`
        Fs.mkdirSync(SHOTS, { recursive: true })
        const browser = yield* launch

        const seen = yield* Effect.promise(async () => {
          const desktop = await browser.newPage({ viewport: { width: 1280, height: 900 } })
          const errors: Array<string> = []
          // The browser asks for /favicon.ico by itself; any other failure is the page's.
          desktop.on(
            "console",
            (m) =>
              m.type() === "error" && !/favicon|Failed to load resource/.test(m.text() + m.location().url) &&
              errors.push(m.text())
          )
          const res = await desktop.goto(url)
          const out = {
            status: res?.status(),
            h1: await desktop.textContent("h1"),
            status_text: await desktop.textContent("[role=status]"),
            current: await desktop.textContent("[aria-current=step]"),
            history: await desktop.$$eval("ol.history li", (els) => els.map((e) => e.textContent ?? "")),
            main: await desktop.textContent("main"),
            scripts: await desktop.$$eval("script", (els) => els.length),
            errors
          }
          await desktop.screenshot({ path: `${SHOTS}/progress-desktop.png`, fullPage: true })
          const phone = await browser.newPage({
            viewport: { width: 390, height: 844 },
            deviceScaleFactor: 2,
            isMobile: true,
            hasTouch: true
          })
          await phone.goto(url)
          const overflow = await phone.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)
          await phone.screenshot({ path: `${SHOTS}/progress-phone.png`, fullPage: true })
          const t = link.searchParams.get("t")!
          const bad = await phone.goto(`${baseUrl}/brokerage/progress?t=${encodeURIComponent(`${t.slice(0, -3)}xyz`)}`)
          const badText = await phone.textContent("main")
          await phone.screenshot({ path: `${SHOTS}/progress-tampered-phone.png`, fullPage: true })
          return { ...out, overflow, badStatus: bad?.status(), badText }
        })

        expect(seen.status).toBe(200)
        expect(seen.h1).toContain("progress-page.com")
        expect(seen.status_text).toContain("Contacting the owner")
        expect(seen.current).toContain("Contacting the owner")
        expect(seen.history).toHaveLength(3)
        expect(seen.history[0]).toContain("Contacting the owner")
        expect(seen.history[2]).toContain("Request received")
        // Nothing about the seller, the partner, operator notes or amounts.
        for (const secret of ["Jane Roe", "looked up", cred.partner_id, cred.key_id, "buyer@example.org", "750"]) {
          expect(seen.main).not.toContain(secret)
        }
        expect(seen.scripts).toBe(0)
        expect(seen.errors).toEqual([])
        expect(seen.overflow).toBe(false)
        expect(seen.badStatus).toBe(400)
        expect(seen.badText).toContain("This link does not work")
        expect(Fs.existsSync(`${SHOTS}/progress-desktop.png`)).toBe(true)
        expect(Fs.existsSync(`${SHOTS}/progress-phone.png`)).toBe(true)
      }))
  })
})
