/**
 * The hosted payment page in a real browser (headless Chromium via playwright-core): a declined
 * card shows its message, the test card pays and lands on the partner's return URL, the link then
 * shows the receipt, an expired link shows the 410 page. Screenshots at desktop and phone widths
 * go to test-results/checkout-*.png. Skipped, with a message, where /usr/bin/chromium is absent.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { hasChromium, launch, VIEWPORTS, warnIfNoChromium } from "../support/Browser.js"
import { openSession } from "../support/CheckoutKit.js"
import { serverAtBaseUrl } from "../support/identity.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"

warnIfNoChromium("checkout-browser")
const SHOTS = "test-results"

const partnerSite = Effect.acquireRelease(
  Effect.async<{ url: string; server: import("node:http").Server }>((resume) => {
    const server = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(
        "<!doctype html><title>partner</title><p>Back at the partner.</p>"
      )
    )
    server.listen(
      0,
      "127.0.0.1",
      () => resume(Effect.succeed({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/thanks` }))
    )
  }),
  (s) => Effect.promise(() => new Promise<void>((resolve) => s.server.close(() => resolve())))
)

describe.skipIf(!hasChromium)("checkout page in headless Chromium", () => {
  layer(serverAtBaseUrl(), { timeout: 120_000 })("checkout", (it) => {
    it.scoped(
      "declined card message, a sandbox payment back to the return URL, receipt, expired link 410; screenshots",
      () =>
        Effect.gen(function*() {
          Fs.mkdirSync(SHOTS, { recursive: true })
          const sql = yield* SqlClient.SqlClient
          const site = yield* partnerSite
          const browser = yield* launch
          const cred = yield* createPartner({ scopes: ["embed"], name: "Acme Domains" })
          yield* seedListings([{ domain: "browser-buy.com", bin: 129_900 }, { domain: "browser-expired.com" }])
          const s = (yield* openSession(cred, {
            domain: "browser-buy.com",
            return_url: site.url,
            cancel_url: site.url,
            buyer_email: "ada@example.org"
          })).json
          const e = (yield* openSession(cred, { domain: "browser-expired.com" })).json

          const landed = yield* Effect.promise(async () => {
            for (const [name, viewport] of Object.entries(VIEWPORTS)) {
              const p = await browser.newPage({ viewport })
              const response = await p.goto(s.checkout_url)
              expect(response!.status()).toBe(200)
              expect(await p.textContent("h1")).toBe("Buy browser-buy.com")
              expect(await p.textContent("[data-testid=price]")).toBe("$1,299.00")
              expect(await p.textContent("[data-testid=seller]")).toBe("Acme Domains")
              await p.screenshot({ path: `${SHOTS}/checkout-${name}.png`, fullPage: true })
              await p.close()
            }
            const page = await browser.newPage({ viewport: VIEWPORTS.phone })
            const errors: Array<string> = []
            page.on(
              "console",
              (m) => m.type() === "error" && /Content Security Policy/i.test(m.text()) && errors.push(m.text())
            )
            await page.goto(s.checkout_url)
            const fill = async (card: string) => {
              await page.fill("#name", "Ada Lovelace")
              await page.fill("#country", "GB")
              await page.fill("#card_number", card)
              await page.fill("#card_exp", "12/34")
              await page.fill("#card_cvc", "123")
            }
            await fill("4000000000000002")
            expect(await page.inputValue("#card_number")).toBe("4000 0000 0000 0002") // the script spaced it: it ran under the CSP
            await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")])
            await page.waitForSelector("#form-error")
            expect(await page.textContent("#form-error")).toContain("Your card was declined")
            expect(await page.inputValue("#email")).toBe("ada@example.org")
            await page.screenshot({ path: `${SHOTS}/checkout-declined-phone.png`, fullPage: true })
            await fill("4242 4242 4242 4242")
            await Promise.all([page.waitForURL((u) => u.href.startsWith(site.url)), page.click("button[type=submit]")])
            expect(await page.textContent("p")).toBe("Back at the partner.")
            const url = new URL(page.url())
            const receipt = await browser.newPage({ viewport: VIEWPORTS.desktop })
            await receipt.goto(s.checkout_url)
            expect(await receipt.textContent("h1")).toBe("Payment received")
            await receipt.screenshot({ path: `${SHOTS}/checkout-receipt-desktop.png`, fullPage: true })
            expect(errors).toEqual([])
            return url
          })
          expect(landed.searchParams.get("session_id")).toBe(s.id)
          expect(landed.searchParams.get("status")).toBe("paid")
          const [order] = yield* sql<
            { status: string }
          >`select status from partner_orders where checkout_session_id = ${s.id}`
          expect(order!.status).toBe("PAID")

          yield* sql`update checkout_sessions set expires_at = now() - interval '1 second' where id = ${e.id}`
          yield* Effect.promise(async () => {
            for (const [name, viewport] of Object.entries(VIEWPORTS)) {
              const p = await browser.newPage({ viewport })
              const response = await p.goto(e.checkout_url)
              expect(response!.status()).toBe(410)
              expect(await p.textContent("h1")).toBe("Checkout link expired")
              expect(await p.$("#card_number")).toBeNull()
              await p.screenshot({ path: `${SHOTS}/checkout-expired-${name}.png`, fullPage: true })
              await p.close()
            }
          })
        }),
      120_000
    )
  })
})
