/**
 * The checkout's pure rules (src/domain/Checkout.ts): card checks, the sandbox test cards, the
 * return/cancel URL rule, the buyer's return address, Stripe's webhook signature scheme, and
 * which provider reports match the payment we started.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { createHmac } from "node:crypto"
import {
  cardBrand,
  checkCard,
  luhnValid,
  paymentMismatch,
  redirectUrlProblem,
  type ReportedPayment,
  returnAddress,
  sandboxOutcome,
  stripeSignatureHeader,
  verifyStripeSignature
} from "../../src/domain/Checkout.js"

/** Appends the Luhn check digit. */
const withCheckDigit = (body: string) => {
  for (let d = 0; d < 10; d++) if (luhnValid(body + d)) return body + d
  throw new Error("unreachable")
}

describe("cards", () => {
  it("the test cards are valid and map to their outcomes", () => {
    expect(sandboxOutcome("4242424242424242")).toBe("succeeded")
    expect(sandboxOutcome("4000000000000002")).toBe("declined")
    expect(sandboxOutcome("4000000000003220")).toBe("requires_action")
    for (const n of ["4242424242424242", "4000000000000002", "4000000000003220"]) expect(luhnValid(n)).toBe(true)
    expect(cardBrand("4242424242424242")).toBe("visa")
    expect(cardBrand("5555555555554444")).toBe("mastercard")
  })

  it("property: exactly one check digit completes any number body; changing one digit breaks it", () =>
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{11,18}$/), fc.nat(), (body, pick) => {
        const full = withCheckDigit(body)
        expect(luhnValid(full)).toBe(true)
        const i = pick % full.length
        const changed = full.slice(0, i) + String((Number(full[i]) + 1 + (pick % 9)) % 10) + full.slice(i + 1)
        if (changed !== full) expect(luhnValid(changed)).toBe(false)
      })
    ))

  it("checkCard keeps brand and last 4, refuses expired cards and bad CVCs", () => {
    const now = new Date("2026-11-24T00:00:00Z")
    const ok = checkCard({ number: "4242 4242 4242 4242", exp: "12/34", cvc: "123" }, now)
    expect(ok).toMatchObject({ ok: true, card: { brand: "visa", last4: "4242", expMonth: 12, expYear: 2034 } })
    expect(checkCard({ number: "4242424242424242", exp: "10/26", cvc: "123" }, now)).toMatchObject({
      ok: false,
      field: "card_exp"
    })
    expect(checkCard({ number: "4242424242424242", exp: "11/26", cvc: "123" }, now)).toMatchObject({ ok: true })
    expect(checkCard({ number: "4242424242424242", exp: "13/30", cvc: "123" }, now)).toMatchObject({
      ok: false,
      field: "card_exp"
    })
    expect(checkCard({ number: "4242424242424242", exp: "12/34", cvc: "12" }, now)).toMatchObject({
      ok: false,
      field: "card_cvc"
    })
    expect(checkCard({ number: "4242424242424241", exp: "12/34", cvc: "123" }, now)).toMatchObject({
      ok: false,
      field: "card_number"
    })
  })
})

describe("return and cancel URLs", () => {
  it("https always; http only outside production; never javascript:, data: or relative", () => {
    expect(redirectUrlProblem("https://shop.example/done", true)).toBeUndefined()
    expect(redirectUrlProblem("http://shop.example/done", false)).toBeUndefined()
    expect(redirectUrlProblem("http://shop.example/done", true)).toBeDefined()
    for (
      const bad of [
        "javascript:alert(1)",
        "JAVASCRIPT:alert(1)",
        "data:text/html,x",
        "ftp://x.example/",
        "/relative",
        "https://user:pw@x.example/"
      ]
    ) {
      expect(redirectUrlProblem(bad, false), bad).toBeDefined()
      expect(redirectUrlProblem(bad, true), bad).toBeDefined()
    }
  })

  it("property: an accepted URL's scheme is https (or http outside production)", () =>
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.boolean(), (url, production) => {
        if (redirectUrlProblem(url, production) === undefined) {
          expect(new URL(url).protocol === "https:" || (!production && new URL(url).protocol === "http:")).toBe(true)
        }
      }),
      { numRuns: 50 }
    ))

  it("the return address keeps the URL's own query and adds session_id and status", () => {
    expect(returnAddress("https://shop.example/done?x=1#f", "cs_1", "paid")).toBe(
      "https://shop.example/done?x=1&session_id=cs_1&status=paid#f"
    )
  })
})

describe("Stripe-Signature", () => {
  const secret = "whsec_test"
  it("property: a header made with the secret verifies within the tolerance; another secret, another body or an old timestamp does not", () =>
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }), (body, t) => {
        const header = stripeSignatureHeader(secret, body, t)
        expect(verifyStripeSignature(header, body, secret, t + 10).ok).toBe(true)
        expect(verifyStripeSignature(header, body, "whsec_other", t).ok).toBe(false)
        expect(verifyStripeSignature(header, body + "x", secret, t).ok).toBe(false)
        expect(verifyStripeSignature(header, body, secret, t + 301).ok).toBe(false)
      })
    ))

  it("accepts any of several v1 signatures (secret rotation) and ignores other schemes", () => {
    const body = "{\"id\":\"evt_1\"}"
    const t = 1_700_000_000
    const good = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")
    expect(verifyStripeSignature(`t=${t},v0=abc,v1=${"0".repeat(64)},v1=${good}`, body, secret, t).ok).toBe(true)
    expect(verifyStripeSignature(undefined, body, secret, t).ok).toBe(false)
    expect(verifyStripeSignature("t=abc,v1=zz", body, secret, t).ok).toBe(false)
  })
})

describe("provider reports", () => {
  const started = {
    id: "cs_ours",
    provider: "stripe",
    payment_ref: "cs_test_started",
    price_cents: 420_000,
    currency: "USD",
    environment: "live" as const
  }
  const exact: ReportedPayment = {
    provider: "stripe",
    ref: "cs_test_started",
    sessionId: "cs_ours",
    amountCents: 420_000,
    currency: "usd",
    environment: "live",
    paymentId: "pi_1"
  }
  it("the payment we started matches (currency case aside; the session echo is optional)", () => {
    expect(paymentMismatch(started, exact)).toBeUndefined()
    expect(paymentMismatch(started, { ...exact, sessionId: null })).toBeUndefined()
  })
  it("property: any other provider, payment, session, amount, currency or environment does not", () =>
    fc.assert(fc.property(
      fc.oneof(
        fc.constantFrom("sandbox", "paypal").map((provider) => ({ provider })),
        fc.string({ minLength: 1 }).filter((r) => r !== exact.ref).map((ref) => ({ ref })),
        fc.string({ minLength: 1 }).filter((id) => id !== started.id).map((sessionId) => ({ sessionId })),
        fc.oneof(fc.integer(), fc.constant(null)).filter((a) => a !== started.price_cents).map((amountCents) => ({
          amountCents
        })),
        fc.oneof(fc.constantFrom("eur", "gbp", ""), fc.constant(null)).map((currency) => ({ currency })),
        fc.constant({ environment: "sandbox" as const })
      ),
      (change) => {
        expect(paymentMismatch(started, { ...exact, ...change })).toBeTypeOf("string")
      }
    )))
  it("a session with no payment started matches nothing", () => {
    expect(paymentMismatch({ ...started, payment_ref: null, provider: null }, exact)).toBeTypeOf("string")
  })
})
