/**
 * The partner console in headless Chromium, as an invited developer uses it: open the invitation
 * link signed out, create an account from the sign-in page (coming back to the link), accept,
 * create a sandbox key, see its secret once (with the copy island's button), and revoke it; set the
 * webhook URL to a loopback receiver (its secret once), send a test event and see it delivered; the
 * orders, checkout sessions, brokerage (a case too) and money pages with a sandbox row each; create a
 * referral link, copy its URL with the copy island's button (by keyboard) and see its QR code, open
 * the analytics' charts; 0 axe violations on every console page in light and dark (the journey is
 * walked once, each page checked in both schemes where it stands), nothing scrolling sideways at
 * 390 px, no CSP refusal. Skipped, with a message, where /usr/bin/chromium is absent.
 *
 * The invitation is recorded as `partner invite` records it (a row with the token's SHA-256).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import type { Page } from "playwright-core"
import { hasChromium, launch, warnIfNoChromium } from "../support/Browser.js"
import { openSession } from "../support/CheckoutKit.js"
import { phonePageInEveryScheme } from "../support/PageChecks.js"
import { buy, createPartner, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { webhookReceiver } from "../support/WebhookReceiver.js"

warnIfNoChromium("console-browser")

const run = <A>(f: () => Promise<A>) => Effect.promise(f)
const text = (page: Page, selector: string) => run(() => page.textContent(selector).then((t) => (t ?? "").trim()))

describe.skipIf(!hasChromium)("partner console in Chromium", () => {
  const env = {
    RATE_LIMITS: JSON.stringify({ auth_login: 1000 }),
    OUTBOUND_ALLOW_LOOPBACK: "true",
    WEBHOOK_POLL_INTERVAL: "100 millis"
  }
  layer(TestServer.layer(env), { timeout: 240_000 })(
    "console",
    (it) => {
      it.scoped(
        "accept an invitation, sign up, create a sandbox key (secret once), revoke it; axe clean light and dark at 390 px",
        () =>
          Effect.gen(function*() {
            const { baseUrl } = yield* TestServer.TestServer
            const sql = yield* SqlClient.SqlClient
            const browser = yield* launch
            const receiver = yield* webhookReceiver()
            const partner = yield* createPartner({
              scopes: ["search", "buy", "webhook", "embed", "broker", "refer", "report"],
              affiliate: true,
              name: "Browser"
            })
            const email = `dev-${Date.now()}@example.test`
            const token = `inv_${randomBytes(32).toString("base64url")}`
            yield* sql`insert into partner_invitations (id, partner_id, email, role, token_hash, invited_by, expires_at)
            values ('pin_browser', ${partner.partner_id}, ${email}, 'developer',
                    ${createHash("sha256").update(token).digest("hex")}, 'operator', now() + interval '1 day')`

            const { check, page, problems, results } = yield* phonePageInEveryScheme(browser)
            const submit = (selector: string) =>
              run(() => Promise.all([page.waitForNavigation(), page.click(selector)]))

            // Signed out, the link asks to sign in first; from there, create the account.
            yield* run(() => page.goto(`${baseUrl}/console/invite/${token}`))
            expect(new URL(page.url()).pathname).toBe("/signin")
            yield* submit("main a[href^='/signup']")
            yield* run(async () => {
              await page.fill("#email", email)
              await page.fill("#password", "correct horse battery")
            })
            yield* submit("main button[type=submit]")
            expect(new URL(page.url()).pathname).toBe(`/console/invite/${token}`)
            expect(yield* text(page, "h1")).toBe("Join Browser")
            yield* check("invitation")
            yield* submit("main button[type=submit]")
            expect(new URL(page.url()).pathname).toBe("/console")
            expect(yield* text(page, "main")).toContain("you are a developer")
            yield* check("overview")

            // A sandbox key: the secret once, with the copy button the island shows.
            yield* submit("main a[href^='/console/keys']")
            yield* check("keys")
            yield* run(() => page.selectOption("#environment", "sandbox").then(() => undefined))
            yield* run(() => page.check("#scope-search"))
            yield* submit("form[action='/console/keys'] button[type=submit]")
            const keyId = yield* text(page, "[data-testid=key-id]")
            expect(keyId).toMatch(/^pk_sandbox_/)
            const secret = yield* run(() => page.inputValue("#secret"))
            expect(secret).toMatch(/^sk_/)
            yield* run(() => page.waitForSelector("button[data-copy='secret']", { state: "visible" }))
            yield* check("new key")

            // Back on the list the secret is gone for good; revoke the key.
            yield* submit("main a[href^='/console/keys']")
            expect(yield* run(() => page.content())).not.toContain(secret)
            yield* submit(`li[data-key-id='${keyId}'] form[action='/console/keys/revoke'] button`)
            expect(yield* text(page, `li[data-key-id='${keyId}'] [data-field=state]`)).toMatch(/^Revoked/)
            yield* check("keys, revoked")

            // Webhooks: the URL (its secret once), a test event, delivered in the log.
            yield* submit("main a[href^='/console/webhooks']")
            yield* check("webhooks")
            yield* run(() => page.fill("#url", receiver.url))
            yield* submit("form[action='/console/webhooks'] button[type=submit]")
            expect(yield* run(() => page.inputValue("#secret"))).toMatch(/^whsec_/)
            yield* check("webhook secret")
            yield* submit("main a[href^='/console/webhooks']")
            yield* submit("form[action='/console/webhooks/test'] button[type=submit]")
            yield* run(async () => {
              for (let i = 0; i < 100; i++) {
                if ((await page.content()).includes("delivery-status\">delivered")) return
                await new Promise((res) => setTimeout(res, 200))
                await page.reload()
              }
            })
            expect(yield* text(page, "[data-field=delivery-status]")).toBe("delivered")
            yield* check("webhooks, delivered")

            // Links: create one; its URL in a read-only field, its QR code, the copy island's button by keyboard.
            yield* submit("main a[href^='/console/links']")
            yield* check("links")
            yield* run(() => page.selectOption("#kind", "generic").then(() => undefined))
            yield* run(() => page.fill("#campaign", "browser"))
            yield* submit("form[action='/console/links'] button[type=submit]")
            const url = yield* run(() => page.inputValue("ol.links li input[readonly]"))
            expect(url).toMatch(/\/r\/[0-9A-Za-z]{10}$/)
            yield* run(() => page.waitForSelector("ol.links li .qr svg", { state: "visible" }))
            yield* run(() =>
              page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl })
            )
            const copy = "ol.links li button[data-copy]"
            yield* run(() => page.waitForSelector(copy, { state: "visible" }))
            yield* run(() => page.focus(copy).then(() => page.keyboard.press("Enter")))
            yield* run(() =>
              page.waitForFunction(() =>
                (document.querySelector("ol.links li [role=status]")?.textContent ?? "") !== ""
              )
            )
            expect(yield* text(page, "ol.links li [role=status]")).toBe("Copied.")
            expect(yield* run(() => page.evaluate(() => navigator.clipboard.readText()))).toBe(url)
            yield* check("links, created")

            // Analytics: six server-drawn charts, each with its numbers.
            yield* submit("main a[href^='/console/analytics']")
            expect(yield* run(() => page.locator("svg.chart[role=img]").count())).toBe(6)
            yield* check("analytics")
            yield* submit("main a[href^='/console/members']")
            yield* check("members")

            // The business pages, with a row on each (a sandbox order, session and case).
            const domain = "browser-console.com"
            yield* seedListings([{ domain, bin: 25_000 }, { domain: `session-${domain}`, bin: 40_000 }])
            yield* buy(partner, domain, 25_000)
            expect((yield* openSession(partner, { domain: `session-${domain}` })).status).toBe(201)
            const opened = yield* signed(partner, "POST", "/api/partner/v1/brokerage", {
              body: { domain: `broker-${domain}`, tier: "managed", buyer_email: "b@example.org", budget: 500_000 }
            })
            expect(opened.status, opened.text).toBe(201)
            yield* submit("main a[href^='/console/orders']")
            expect(yield* text(page, "[data-field=order-status]")).toBe("EXTERNALLY_PAID")
            yield* check("orders")
            yield* submit("main a[href^='/console/checkout-sessions']")
            expect(yield* text(page, "[data-field=session-status]")).toBe("open")
            yield* check("checkout sessions")
            yield* submit("main a[href^='/console/brokerage']")
            yield* check("brokerage")
            yield* submit(`li[data-case='${opened.json.id}'] a`)
            expect(yield* text(page, "h1")).toBe(`broker-${domain}`)
            yield* check("brokerage case")
            yield* submit("main a[href^='/console/money']")
            expect(yield* text(page, "[data-field=sales-totals]")).toMatch(/^1 sale/)
            yield* check("money")
            expect(problems).toEqual([])
            const failing = Object.fromEntries(Object.entries(results).filter(([, v]) => v.length > 0))
            expect(failing).toEqual({})
            expect(Object.keys(results).length).toBe(34)
          }),
        { timeout: 240_000 }
      )
    }
  )
})
