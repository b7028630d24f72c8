/**
 * The public buy page in a real browser (headless Chromium via playwright-core): GET /buy/{domain}
 * shows the offer and opens nothing; its button posts the form (same origin, CSRF token), which
 * opens the session and lands on the payment page; the test card pays; the receipt shows.
 * Screenshots at desktop and phone widths go to test-results/buy-*.png. Skipped, with a message,
 * where /usr/bin/chromium is absent.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { hasChromium, launch, VIEWPORTS, warnIfNoChromium } from "../support/Browser.js"
import { serverAtBaseUrl } from "../support/identity.js"
import { seedListings } from "../support/PartnerKit.js"
import { TestServer } from "../support/TestServer.js"

warnIfNoChromium("buy-browser")
const SHOTS = "test-results"

describe.skipIf(!hasChromium)("buy page in headless Chromium", () => {
  layer(serverAtBaseUrl(), { timeout: 120_000 })("buy", (it) => {
    it.scoped(
      "GET shows the offer and writes nothing; Continue opens the session; 4242 pays; receipt",
      () =>
        Effect.gen(function*() {
          Fs.mkdirSync(SHOTS, { recursive: true })
          const sql = yield* SqlClient.SqlClient
          const { baseUrl } = yield* TestServer
          const browser = yield* launch
          yield* seedListings([{ domain: "browser-offer.com", environment: "live", bin: 249_900 }])
          const sessions = () =>
            sql<{ n: string }>`select count(*) as n from checkout_sessions where domain = 'browser-offer.com'`.pipe(
              Effect.map((rows) => Number(rows[0]!.n))
            )

          yield* Effect.promise(async () => {
            for (const [name, viewport] of Object.entries(VIEWPORTS)) {
              const p = await browser.newPage({ viewport })
              const response = await p.goto(`${baseUrl}/buy/browser-offer.com`)
              expect(response!.status()).toBe(200)
              expect(await p.textContent("h1")).toBe("Buy browser-offer.com")
              expect(await p.textContent("[data-testid=price]")).toBe("$2,499.00")
              expect(await p.textContent("[data-testid=seller]")).toBe("Domain Marketplace")
              await p.screenshot({ path: `${SHOTS}/buy-offer-${name}.png`, fullPage: true })
              await p.close()
            }
          })
          expect(yield* sessions()).toBe(0)

          const receipt = yield* Effect.promise(async () => {
            const page = await browser.newPage({ viewport: VIEWPORTS.phone })
            const errors: Array<string> = []
            page.on(
              "console",
              (m) => m.type() === "error" && /Content Security Policy/i.test(m.text()) && errors.push(m.text())
            )
            await page.goto(`${baseUrl}/buy/browser-offer.com`)
            await Promise.all([page.waitForURL(/\/checkout\?pt=/), page.click("button[type=submit]")])
            expect(await page.textContent("h1")).toBe("Buy browser-offer.com")
            await page.fill("#email", "ada@example.org")
            await page.fill("#name", "Ada Lovelace")
            await page.fill("#country", "GB")
            await page.fill("#card_number", "4242 4242 4242 4242")
            await page.fill("#card_exp", "12/34")
            await page.fill("#card_cvc", "123")
            await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")])
            await page.waitForSelector("text=Payment received")
            await page.screenshot({ path: `${SHOTS}/buy-receipt-phone.png`, fullPage: true })
            expect(errors).toEqual([])
            return { h1: await page.textContent("h1"), url: page.url() }
          })
          expect(receipt.h1).toBe("Payment received")
          expect(receipt.url).toMatch(/\/checkout\?pt=/)
          expect(yield* sessions()).toBe(1)
          const [order] = yield* sql<{ status: string; payment_model: string; partner_id: string }>`
          select status, payment_model, partner_id from partner_orders where domain = 'browser-offer.com'`
          expect(order).toMatchObject({
            status: "PAID",
            payment_model: "hosted_checkout",
            partner_id: "ptn_marketplace"
          })
        }).pipe(Effect.orDie),
      120_000
    )
  })
})
