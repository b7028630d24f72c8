/**
 * A buyer's journeys through the storefront in Chromium, by keyboard only (Tab, typing, Enter; no
 * clicks): a partner's referral link for a name lands on its buy page, the buyer pays with the
 * sandbox card and the sale is the partner's referral sale; another name without a buy-now price
 * gets an offer through its page's form. Focus is visible on every control reached. Skipped, with
 * a message, where /usr/bin/chromium is absent.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { hasChromium, launch, VIEWPORTS, warnIfNoChromium } from "../support/Browser.js"
import { serverAtBaseUrl } from "../support/identity.js"
import { createPartner, seedListings, signed } from "../support/PartnerKit.js"
import { TestServer } from "../support/TestServer.js"

warnIfNoChromium("journey-browser")

const run = <A>(f: () => Promise<A>) => Effect.promise(f)

/** What has the focus: its id, or its text for a link or a button; and whether focus is drawn. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null
    if (el === null || el === document.body) return { name: "", visible: false }
    const style = getComputedStyle(el)
    const visible = style.outlineStyle !== "none" && style.outlineWidth !== "0px" || style.boxShadow !== "none"
    return { name: el.id !== "" ? `#${el.id}` : (el.textContent ?? "").trim(), visible }
  })

/** Presses Tab until `name` has the focus (at most 40 times), then checks that the focus shows. */
const tabTo = (page: Page, name: string) =>
  run(async () => {
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab")
      const now = await focused(page)
      if (now.name === name) {
        expect(now.visible, `focus on ${name} is visible`).toBe(true)
        return
      }
    }
    throw new Error(`Tab never reached ${name} on ${page.url()}`)
  })

/** Fills `fields` in tab order: Tab to the first, type, then Tab to each next one and type. */
const typeInto = (page: Page, fields: ReadonlyArray<readonly [string, string]>) =>
  Effect.forEach(fields, ([name, text]) => Effect.zipRight(tabTo(page, name), run(() => page.keyboard.type(text))), {
    discard: true
  })

const enter = (page: Page) => run(() => Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]))

describe.skipIf(!hasChromium)("a buyer's journeys, keyboard only", () => {
  layer(serverAtBaseUrl(), { timeout: 180_000 })("journeys", (it) => {
    it.scoped("a referral link to a name, bought with the test card: the partner's referral sale", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* seedListings([{ domain: "journey-shop.com", environment: "live", bin: 180_000 }])
        const aff = yield* createPartner({ environment: "live", scopes: ["refer"], affiliate: true })
        const link = yield* signed(aff, "POST", "/api/partner/v1/links", {
          body: { kind: "domain", domain: "journey-shop.com" }
        })
        expect(link.status, link.text).toBe(201)

        const browser = yield* launch
        const page = yield* run(() => browser.newPage({ viewport: VIEWPORTS.phone }))
        yield* run(() => page.goto(link.json.url))
        expect(new URL(page.url()).pathname).toBe("/buy/journey-shop.com")
        expect(yield* run(() => page.textContent("h1"))).toBe("Buy journey-shop.com")

        yield* tabTo(page, "Continue to payment")
        yield* enter(page)
        expect(page.url()).toMatch(/\/checkout\?pt=/)
        yield* typeInto(page, [
          ["#email", "kay@example.org"],
          ["#name", "Kay Board"],
          ["#country", "NL"],
          ["#card_number", "4242 4242 4242 4242"],
          ["#card_exp", "12/34"],
          ["#card_cvc", "123"]
        ])
        yield* enter(page)
        yield* run(() => page.waitForSelector("text=Payment received"))
        expect(yield* run(() => page.textContent("main"))).toContain("visa ending 4242")

        const [order] = yield* sql<{ status: string; payment_model: string; partner_id: string }>`
          select status, payment_model, partner_id from partner_orders where domain = 'journey-shop.com'`
        expect(order).toMatchObject({ status: "PAID", payment_model: "referral", partner_id: aff.partner_id })
      }))

    it.scoped("a name without a buy-now price: an offer through its page's form", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { baseUrl } = yield* TestServer
        yield* seedListings([{ domain: "journey-offer.com", environment: "live", bin: null }])
        const browser = yield* launch
        const page = yield* run(() => browser.newPage({ viewport: VIEWPORTS.phone }))
        yield* run(() => page.goto(`${baseUrl}/d/journey-offer.com`))
        expect(yield* run(() => page.textContent("main"))).toContain("No fixed price: make an offer")
        yield* typeInto(page, [["#amount", "1500"], ["#email", "olu@example.org"]])
        yield* tabTo(page, "Send offer")
        yield* enter(page)
        expect(yield* run(() => page.textContent("h1"))).toBe("Offer sent")

        const offers = yield* sql<{ amount_cents: number; email: string; status: string }>`
          select amount_cents::int as amount_cents, email, status from market_offers where domain = 'journey-offer.com'`
        expect(offers).toEqual([{ amount_cents: 150_000, email: "olu@example.org", status: "pending" }])
      }))
  })
})
