/**
 * The `stripe` payment provider against a loopback fake speaking Stripe's PaymentIntents protocol:
 * the card goes to the provider (never to our database); `payment_intent.succeeded` delivered
 * twice and before the buyer's redirect creates one order; Stripe-Signature is verified; a
 * declined card shows Stripe's message; 3-D Secure goes through the bank's redirect and back.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { stripeSignatureHeader } from "../../src/domain/Checkout.js"
import { apiClient } from "../support/ApiClient.js"
import { CARDS, ordersOfSession, payWith, ptOf } from "../support/CheckoutKit.js"
import { fetchReply } from "../support/http.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"
import { freePort } from "../support/ServiceProcess.js"
import { startStripeFake } from "../support/StripeServer.js"
import * as TestServer from "../support/TestServer.js"

const WHSEC = "whsec_test_fake"

layer(Layer.empty, { timeout: 120_000 })("stripe provider", (it) => {
  it.scoped(
    "webhook twice and before the redirect: one order; signatures verified; declines and 3-D Secure",
    () =>
      Effect.gen(function*() {
        const stripe = yield* startStripeFake()
        const port = yield* freePort()
        const baseUrl = `http://127.0.0.1:${port}`
        const server = yield* Layer.build(TestServer.layer({
          PORT: String(port),
          BASE_URL: baseUrl,
          PAYMENT_PROVIDER: "stripe",
          STRIPE_API_KEY: stripe.apiKey,
          STRIPE_API_BASE: stripe.baseUrl,
          STRIPE_WEBHOOK_SECRET: WHSEC,
          CHECKOUT_RECONCILE_INTERVAL: "200 millis"
        }))
        const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, server) as Effect.Effect<A, E>
        stripe.checkout.webhookUrl = `${baseUrl}/api/checkout/stripe/webhook`
        stripe.checkout.webhookTimes = 2
        const cred = yield* run(createPartner({ environment: "live", scopes: ["embed", "buy"], name: "Live Partner" }))
        // The typed client signed as the partner: sessions decoded by CheckoutSession.
        const client = yield* run(apiClient({ partner: cred }))
        const open = (payload: { readonly domain: string; readonly return_url?: string }) =>
          client.checkoutSessions.createCheckoutSession({ payload, headers: {} })
        const sessionStatus = (id: string) =>
          Effect.map(client.checkoutSessions.getCheckoutSession({ path: { id } }), (session) => session.status)
        yield* run(seedListings([
          { domain: "stripe-paid.com", environment: "live", bin: 250_000 },
          { domain: "stripe-declined.com", environment: "live" },
          { domain: "stripe-3ds.com", environment: "live" }
        ]))

        // 1. Paid: the fake sends the webhook twice before it answers our confirm call.
        const s = yield* open({ domain: "stripe-paid.com", return_url: "https://partner.example/thanks" })
        const paid = yield* run(payWith(ptOf(s.checkout_url), CARDS.ok, { baseUrl }))
        expect(paid.status, paid.text).toBe(303)
        expect(paid.headers.get("location")).toBe(`https://partner.example/thanks?session_id=${s.id}&status=paid`)
        expect(stripe.webhooksSent.map((w) => w.status)).toEqual([200, 200])
        expect(yield* run(ordersOfSession(s.id))).toHaveLength(1)
        const intent = [...stripe.intents.values()].find((pi) => pi.metadata.session_id === s.id)!
        expect(intent).toMatchObject({ amount: 250_000, currency: "usd", status: "succeeded" })
        expect(stripe.confirms.find((c) => c.id === intent.id)?.card).toBe("4242424242424242") // the card went to the provider
        const sql = yield* run(SqlClient.SqlClient)
        const [leak] = yield* run(
          sql<
            { n: number }
          >`select count(*)::int as n from checkout_sessions c where row_to_json(c)::text like '%4242424242424242%'`
        )
        expect(leak!.n).toBe(0)
        const [ref] = yield* run(
          sql<
            { external_payment_ref: string }
          >`select external_payment_ref from partner_orders where checkout_session_id = ${s.id}`
        )
        expect(ref!.external_payment_ref).toBe(intent.id)
        expect(yield* sessionStatus(s.id)).toBe("paid")

        // 2. The same webhook again later (Stripe retries): still one order. Bad signatures: 400.
        const body = JSON.stringify({
          id: "evt_again",
          type: "payment_intent.succeeded",
          data: { object: { id: intent.id, metadata: { session_id: s.id } } }
        })
        const hook = (signature: string) =>
          Effect.promise(() =>
            fetchReply(`${baseUrl}/api/checkout/stripe/webhook`, {
              method: "POST",
              body,
              headers: { "content-type": "application/json", "stripe-signature": signature }
            })
          )
        const now = Math.floor(Date.now() / 1000)
        expect((yield* hook(stripeSignatureHeader(WHSEC, body, now))).status).toBe(200)
        expect(yield* run(ordersOfSession(s.id))).toHaveLength(1)
        expect((yield* hook(stripeSignatureHeader("whsec_wrong", body, now))).json.error.code).toBe("invalid_signature")
        expect((yield* hook(stripeSignatureHeader(WHSEC, body, now - 3600))).status).toBe(400)
        expect((yield* hook("garbage")).status).toBe(400)

        // 3. Declined: Stripe's message on the page, the session stays open, nothing recorded.
        const d = yield* open({ domain: "stripe-declined.com" })
        const declined = yield* run(payWith(ptOf(d.checkout_url), CARDS.declined, { baseUrl }))
        expect(declined.status).toBe(402)
        expect(declined.text).toContain("Your card was declined.")
        expect(yield* run(ordersOfSession(d.id))).toHaveLength(0)

        // 4. 3-D Secure: redirect to the bank (the fake), back to /checkout/return, paid.
        const t = yield* open({ domain: "stripe-3ds.com", return_url: "https://partner.example/3ds-done" })
        const toBank = yield* run(payWith(ptOf(t.checkout_url), CARDS.action, { baseUrl }))
        expect(toBank.status).toBe(303)
        const bank = toBank.headers.get("location")!
        expect(bank.startsWith(`${stripe.baseUrl}/3ds/`)).toBe(true)
        const back = yield* Effect.promise(() => fetchReply(bank))
        expect(back.status).toBe(302)
        const returned = yield* Effect.promise(() => fetchReply(back.headers.get("location")!))
        expect(returned.status).toBe(303)
        expect(returned.headers.get("location")).toBe(`https://partner.example/3ds-done?session_id=${t.id}&status=paid`)
        expect(yield* run(ordersOfSession(t.id))).toHaveLength(1)

        // 5. A refund of the paid order gives the buyer's money back at Stripe, once.
        const orderId = (yield* client.checkoutSessions.getCheckoutSession({ path: { id: s.id } })).order!.public_id
        const [, refund] = yield* client.partnerOrders.createRefund({
          payload: { order_id: orderId, reason: "buyer changed their mind" },
          withResponse: true
        })
        expect(refund.status).toBe(201)
        for (let i = 0; i < 100 && (yield* sessionStatus(s.id)) !== "refunded"; i++) {
          yield* Effect.sleep("100 millis")
        }
        expect(yield* sessionStatus(s.id)).toBe("refunded")
        expect(stripe.refunds).toEqual([intent.id])
        expect(stripe.intents.get(intent.id)?.refunded).toBe(true)
        yield* Effect.sleep("500 millis") // further reconciliation runs refund nothing more
        expect(stripe.refunds).toEqual([intent.id])
      }),
    120_000
  )
})
