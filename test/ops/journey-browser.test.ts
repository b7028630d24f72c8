/**
 * Issue 34's "done when", in one run in headless Chromium, no CLI and no SQL on the way: an
 * operator signs in and creates a partner with its owner's invitation from /ops/partners; the
 * owner (a new person) follows the link, signs up, accepts, creates a sandbox key, registers and
 * test-fires a webhook, creates a referral link that a visitor then clicks; after a sandbox sale
 * (signed with the key the owner made) the owner sees the order held, and the analytics' chart
 * moves. The operator clears the held order and starts its transfer, closes a brokerage deal, and
 * runs settlement from /ops; the owner downloads the statement; the operator narrows the key's
 * scopes, suspends and resumes the partner, and the signed API and the owner's console follow;
 * /ops/audit shows every step with the person who took it. Skipped, with a message, where
 * /usr/bin/chromium is absent.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import type { Browser, Page } from "playwright-core"
import type { Scope } from "../../src/partner/Auth.js"
import { hasChromium, launch, warnIfNoChromium } from "../support/Browser.js"
import { createTestUser } from "../support/identity.js"
import { buy, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { webhookReceiver } from "../support/WebhookReceiver.js"

warnIfNoChromium("journey-browser")

const run = <A>(f: () => Promise<A>) => Effect.promise(f)
const text = (page: Page, selector: string) => run(() => page.textContent(selector).then((t) => (t ?? "").trim()))
const SCOPES: ReadonlyArray<Scope> = ["search", "buy", "webhook", "broker", "refer", "report"]

/** A person's own browser window: `submit` clicks and waits for the page it leads to. */
const person = (browser: Browser) =>
  Effect.gen(function*() {
    const context = yield* Effect.acquireRelease(run(() => browser.newContext()), (c) => run(() => c.close()))
    const page = yield* run(() => context.newPage())
    const submit = (selector: string) => run(() => Promise.all([page.waitForNavigation(), page.click(selector)]))
    return { page, submit }
  })

/** Reloads `page` until `selector`'s text passes `ok` (a worker writes it a little later). */
const eventually = (page: Page, selector: string, ok: (text: string) => boolean) =>
  run(async () => {
    for (let i = 0; i < 100; i++) {
      const shown = await page.locator(selector).first().textContent().catch(() => null)
      if (shown !== null && ok(shown.trim())) return shown.trim()
      await new Promise((res) => setTimeout(res, 200))
      await page.reload()
    }
    throw new Error(`${selector} never passed on ${page.url()}`)
  })

describe.skipIf(!hasChromium)("the consoles' journey in Chromium", () => {
  const env = {
    REVIEW_THRESHOLD_CENTS: "500000",
    SETTLEMENT_HOLD_DAYS: "0",
    RATE_LIMITS: JSON.stringify({ auth_login: 1000 }),
    OUTBOUND_ALLOW_LOOPBACK: "true",
    WEBHOOK_POLL_INTERVAL: "100 millis"
  }
  layer(TestServer.layer(env), { timeout: 300_000 })("journey", (it) => {
    it.scoped(
      "invited from /ops, the partner serves itself; the operator runs the money from /ops; all audited",
      () =>
        Effect.gen(function*() {
          const { baseUrl } = yield* TestServer.TestServer
          const browser = yield* launch
          const receiver = yield* webhookReceiver()
          const operator = yield* createTestUser({ role: "operator" })
          const ownerEmail = `owner-${Date.now()}@example.test`
          const ops = yield* person(browser)
          const owner = yield* person(browser)

          // The operator signs in and creates the partner with its owner's invitation.
          yield* run(() => ops.page.goto(`${baseUrl}/ops/partners`))
          yield* run(async () => {
            await ops.page.fill("#email", operator.email)
            await ops.page.fill("#password", operator.password)
          })
          yield* ops.submit("main button[type=submit]")
          expect(new URL(ops.page.url()).pathname).toBe("/ops/partners")
          yield* run(async () => {
            await ops.page.fill("#name", "Journey Registrar")
            await ops.page.selectOption("#environment", "sandbox")
            for (const s of SCOPES) await ops.page.check(`#scope-${s}`)
            await ops.page.check("#affiliate")
            await ops.page.fill("#owner_email", ownerEmail)
          })
          yield* ops.submit("form[action='/ops/partners'] button[type=submit]")
          const partnerId = yield* text(ops.page, "[data-testid=partner-id]")
          const firstKey = yield* text(ops.page, "[data-testid=key-id]")
          const invitation = yield* run(() => ops.page.inputValue("#invitation"))
          expect(invitation).toContain("/console/invite/inv_")

          // The owner follows the link, signs up, accepts: the console.
          // (The test server's BASE_URL names no port: the link's path, on the server.)
          const here = (url: string) => `${baseUrl}${new URL(url).pathname}`
          yield* run(() => owner.page.goto(here(invitation)))
          yield* owner.submit("main a[href^='/signup']")
          yield* run(async () => {
            await owner.page.fill("#email", ownerEmail)
            await owner.page.fill("#password", "correct horse battery")
          })
          yield* owner.submit("main button[type=submit]")
          yield* owner.submit("main button[type=submit]")
          expect(new URL(owner.page.url()).pathname).toBe("/console")
          expect(yield* text(owner.page, "main")).toContain("Journey Registrar")

          // A sandbox key, its secret shown once.
          yield* owner.submit("main a[href^='/console/keys']")
          yield* run(async () => {
            await owner.page.selectOption("#environment", "sandbox")
            for (const s of SCOPES) await owner.page.check(`#scope-${s}`)
          })
          yield* owner.submit("form[action='/console/keys'] button[type=submit]")
          const key = {
            partner_id: partnerId,
            key_id: yield* text(owner.page, "[data-testid=key-id]"),
            secret: yield* run(() => owner.page.inputValue("#secret")),
            environment: "sandbox" as const,
            scopes: SCOPES
          }
          expect(key.key_id).toMatch(/^pk_sandbox_/)

          // A webhook registered and test-fired: delivered.
          yield* owner.submit("main a[href^='/console/webhooks']")
          yield* run(() => owner.page.fill("#url", receiver.url))
          yield* owner.submit("form[action='/console/webhooks'] button[type=submit]")
          yield* owner.submit("main a[href^='/console/webhooks']")
          yield* owner.submit("form[action='/console/webhooks/test'] button[type=submit]")
          yield* eventually(owner.page, "[data-field=delivery-status]", (s) => s === "delivered")

          // A referral link, clicked by a visitor: the analytics' click chart moves.
          yield* owner.submit("main a[href^='/console/links']")
          yield* run(() => owner.page.selectOption("#kind", "generic").then(() => undefined))
          yield* owner.submit("form[action='/console/links'] button[type=submit]")
          const link = yield* run(() => owner.page.inputValue("ol.links li input[readonly]"))
          yield* owner.submit("main a[href^='/console/analytics']")
          expect(yield* text(owner.page, "[data-field=clicks]")).toBe("0")
          const visitor = yield* person(browser)
          yield* run(() => visitor.page.goto(here(link)))
          yield* eventually(owner.page, "[data-field=clicks]", (s) => s === "1")
          expect(yield* run(() => owner.page.locator("svg.chart[role=img]").count())).toBe(6)

          // A sandbox sale over the review threshold, signed with the owner's key: held.
          yield* seedListings([{ domain: "journey-sale.com", bin: 600_000 }])
          const orderId = yield* buy(key, "journey-sale.com", 600_000)
          yield* owner.submit("main a[href^='/console/orders']")
          expect(yield* text(owner.page, "[data-field=order-status]")).toBe("MANUAL_REVIEW")
          const opened = yield* signed(key, "POST", "/api/partner/v1/brokerage", {
            body: { domain: "journey-broker.com", tier: "managed", buyer_email: "b@example.org", budget: 500_000 }
          })
          expect(opened.status, opened.text).toBe(201)
          const caseId = opened.json.id as string

          // The operator clears the held order and starts its transfer; the sandbox delivers it.
          yield* ops.submit("nav[aria-label='Operator console'] a[href='/ops/orders']")
          yield* ops.submit(`li[data-order='${orderId}'] button[aria-label^='Clear']`)
          yield* ops.submit(`li[data-order='${orderId}'] button[aria-label^='Start transfer']`)
          for (let i = 0; i < 20; i++) {
            const status = (yield* signed(key, "GET", `/api/partner/v1/orders/${orderId}`)).json.status
            if (status === "TRANSFER_COMPLETED") break
            yield* signed(key, "POST", `/api/partner/v1/sandbox/orders/${orderId}/advance`)
          }
          expect((yield* signed(key, "GET", `/api/partner/v1/orders/${orderId}`)).json.status).toBe(
            "TRANSFER_COMPLETED"
          )

          // The brokerage deal: advanced to an agreed price, closed won.
          yield* ops.submit("nav[aria-label='Operator console'] a[href='/ops/brokerage']")
          for (let step = 0; step < 4; step++) {
            if (step === 3) yield* run(() => ops.page.fill(`#advance-price-${caseId}`, "300000"))
            yield* ops.submit(`li[data-case='${caseId}'] button[aria-label^='Advance']`)
          }
          expect(yield* text(ops.page, `li[data-case='${caseId}'] .status`)).toBe("deal_agreed")
          yield* run(() => ops.page.selectOption(`#close-outcome-${caseId}`, "won").then(() => undefined))
          yield* ops.submit(`li[data-case='${caseId}'] button[aria-label^='Close']`)
          expect(yield* run(() => ops.page.locator(`li[data-case='${caseId}']`).count())).toBe(0)

          // Settlement from /ops; the owner downloads the statement with the order on it.
          yield* ops.submit("nav[aria-label='Operator console'] a[href='/ops/money']")
          yield* ops.submit("form[action='/ops/money/settle'] button")
          expect(yield* text(ops.page, "main")).toContain(partnerId)
          yield* owner.submit("main a[href^='/console/money']")
          const [download] = yield* run(() =>
            Promise.all([
              owner.page.waitForEvent("download"),
              owner.page.click("a[aria-label^='Download CSV of statement']")
            ])
          )
          const statement = Fs.readFileSync((yield* run(() => download.path()))!, "utf8")
          expect(statement.split("\r\n")[0]).toMatch(/^statement_id,/)
          expect(statement).toContain(orderId)

          // The owner makes a spare key with every scope and revokes it: a record of `buy` that stays.
          yield* owner.submit("main a[href^='/console/keys']")
          yield* run(async () => {
            await owner.page.selectOption("#environment", "sandbox")
            for (const s of SCOPES) await owner.page.check(`#scope-${s}`)
          })
          yield* owner.submit("form[action='/console/keys'] button[type=submit]")
          const spare = yield* text(owner.page, "[data-testid=key-id]")
          yield* owner.submit("main a[href^='/console/keys']")
          yield* owner.submit(`li[data-key-id='${spare}'] form[action='/console/keys/revoke'] button`)

          // The operator narrows the owner's key to `search`, then suspends and resumes the partner.
          const availability = "/api/partner/v1/availability?domain=journey-sale.com"
          yield* ops.submit("nav[aria-label='Operator console'] a[href='/ops/partners']")
          // (Both of its live keys: the owner's, and the first one the operator was shown.)
          for (const keyId of [key.key_id, firstKey]) {
            yield* run(async () => {
              await ops.page.click(`summary:has-text('${keyId}')`)
              for (const s of SCOPES) await ops.page.setChecked(`#scope-${keyId}-${s}`, s === "search")
            })
            yield* ops.submit(`form:has(#scope-${keyId}-search) button[type=submit]`)
          }
          expect((yield* signed(key, "GET", availability)).status).toBe(200)
          const quote = yield* signed(key, "POST", "/api/partner/v1/quotes", { body: { domain: "journey-sale.com" } })
          expect(quote.json.error.code).toBe("forbidden")
          // Nor can the owner give a new key what the operator took away.
          yield* run(() => owner.page.goto(`${baseUrl}/console/keys?partner=${partnerId}`))
          expect(yield* run(() => owner.page.locator("#scope-buy").count())).toBe(0)
          expect(yield* run(() => owner.page.locator("#scope-search").count())).toBe(1)
          yield* ops.submit(`li[data-partner='${partnerId}'] button[aria-label='Suspend: Journey Registrar']`)
          expect(yield* text(ops.page, `li[data-partner='${partnerId}'] [data-field=suspended]`)).toContain("suspended")
          expect((yield* signed(key, "GET", availability)).json.error.code).toBe("credential_not_active")
          // The owner's console says so, on every page.
          yield* run(() => owner.page.reload())
          expect(yield* text(owner.page, "[data-field=suspended]")).toContain("suspended this partner")
          yield* ops.submit(`li[data-partner='${partnerId}'] button[aria-label='Resume: Journey Registrar']`)
          expect((yield* signed(key, "GET", availability)).status).toBe(200)
          yield* run(() => owner.page.reload())
          expect(yield* run(() => owner.page.locator("[data-field=suspended]").count())).toBe(0)

          // The audit log names each step's person.
          yield* ops.submit("nav[aria-label='Operator console'] a[href='/ops/audit']")
          const entries = yield* run(() =>
            ops.page.locator("ol[aria-label='Audit entries'] li").evaluateAll((items) =>
              items.map((li) =>
                `${li.querySelector(".name")?.textContent} by ${li.querySelector(".status")?.textContent}`
              )
            )
          )
          for (
            const step of [
              "partner.create",
              "member.invite",
              "order.clear-review",
              "order.start-transfer",
              "brokerage.advance",
              "brokerage.close",
              "settlement.run"
            ]
          ) {
            expect(entries, step).toContain(`${step} by ${operator.email}`)
          }
          for (
            const step of ["console.key_create", "console.webhook_set", "console.webhook_test", "console.link_create"]
          ) {
            expect(entries, step).toContain(`${step} by ${ownerEmail}`)
          }
        }),
      { timeout: 300_000 }
    )
  })
})
