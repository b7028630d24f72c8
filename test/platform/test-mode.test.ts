/**
 * TEST_MODE=true (issue 29 item 9): every HTML page the service answers — the hosted checkout and
 * its receipt, /buy, the OAuth sign-in screen, brokerage progress, error pages — says "Test mode"
 * visibly; JSON answers are untouched, and without TEST_MODE no page says it.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CARDS, openSession, page, payWith, ptOf } from "../support/CheckoutKit.js"
import { request } from "../support/http.js"
import { authorizeQuery, pkcePair, registerClient } from "../support/identity.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const BANNER = /<body[^>]*>\s*<div class="test-mode" role="region" aria-label="Test mode"[^>]*>Test mode/

/** The HTML of `path`, following redirects like a browser (e.g. /buy/… to the checkout page). */
const browse = (path: string) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer.TestServer
    return yield* Effect.promise(async () => {
      const res = await fetch(`${baseUrl}${path}`, { redirect: "follow" })
      return { status: res.status, contentType: res.headers.get("content-type") ?? "", text: await res.text() }
    })
  })

const expectBanner = (reply: { readonly contentType?: string | null; readonly text: string }, what: string) => {
  expect(reply.contentType ?? "", what).toContain("text/html")
  expect(reply.text, what).toMatch(BANNER)
}

describe("TEST_MODE=true", () => {
  layer(TestServer.layer({ TEST_MODE: "true" }))("banner", (it) => {
    it.effect("the hosted checkout page and its receipt say Test mode", () =>
      Effect.gen(function*() {
        const cred = yield* createPartner({ environment: "sandbox", scopes: ["embed", "buy"] })
        yield* seedListings([{ domain: "test-mode-banner.com", bin: 12_000 }])
        const opened = yield* openSession(cred, {
          domain: "test-mode-banner.com",
          return_url: "https://partner.example/done"
        })
        expect(opened.status, opened.text).toBe(201)
        const pt = ptOf(opened.json.checkout_url)
        const form = yield* page(`/checkout?pt=${encodeURIComponent(pt)}`)
        expect(form.status, form.text).toBe(200)
        expect(form.text).toContain("card_number")
        expectBanner({ contentType: form.headers.get("content-type"), text: form.text }, "payment page")
        const paid = yield* payWith(pt, CARDS.ok)
        expect(paid.status, paid.text).toBe(303)
        const receipt = yield* page(`/checkout?pt=${encodeURIComponent(pt)}`)
        expect(receipt.text).toContain("Receipt")
        expectBanner({ contentType: receipt.headers.get("content-type"), text: receipt.text }, "receipt")
      }))

    it.effect("/buy, the OAuth sign-in screen, brokerage progress and error pages say Test mode", () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "test-mode-buy.com", bin: 9_000 }])
        expectBanner(yield* browse("/buy/test-mode-buy.com"), "/buy")
        const clientId = yield* registerClient()
        const signIn = yield* browse(
          `/oauth/authorize?${authorizeQuery({ clientId, challenge: pkcePair().challenge })}`
        )
        expect(signIn.status).toBe(200)
        expectBanner(signIn, "OAuth sign-in")
        const progress = yield* browse("/brokerage/progress?t=tampered")
        expect(progress.status).toBe(400)
        expectBanner(progress, "brokerage progress")
        const expired = yield* browse("/checkout?pt=not-a-token")
        expect(expired.status).toBeGreaterThanOrEqual(400)
        expectBanner(expired, "checkout error page")
      }))

    it.effect("JSON answers are untouched", () =>
      Effect.gen(function*() {
        const health = yield* request("/healthz")
        expect(health.status).toBe(200)
        expect(health.text).not.toContain("Test mode")
        expect(health.json).toBeDefined()
      }))
  })
})

describe("without TEST_MODE", () => {
  layer(TestServer.layer())("no banner", (it) => {
    it.effect("pages do not say Test mode", () =>
      Effect.gen(function*() {
        const reply = yield* browse("/checkout?pt=not-a-token")
        expect(reply.contentType).toContain("text/html")
        expect(reply.text).not.toContain("Test mode")
      }))
  })
})
