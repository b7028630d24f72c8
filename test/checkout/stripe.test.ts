/**
 * The `stripe` payment provider against a loopback fake speaking Stripe's Checkout Sessions
 * protocol: card data never reaches the service (our page has no card fields; the buyer is sent
 * to the Stripe session's hosted `url`); the signed `checkout.session.completed`, delivered twice
 * and before the buyer's return, makes one order; a lost webhook is caught by the reconciliation
 * poll; a cancelled or expired Stripe session gives the domain back; a refund goes to Stripe with
 * the session's PaymentIntent, once. A cart (bulk renew/restore) pays the same way, one Stripe line
 * per item.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { CartCheckout, CartFulfilment } from "../../src/checkout/Cart.js"
import { CartCheckoutLive, Checkout } from "../../src/checkout/Checkout.js"
import { PaymentProvidersLive } from "../../src/checkout/PaymentProvider.js"
import { stripeSignatureHeader } from "../../src/domain/Checkout.js"
import { apiClient } from "../support/ApiClient.js"
import { ordersOfSession, payWith, ptOf } from "../support/CheckoutKit.js"
import { fetchReply } from "../support/http.js"
import { createPartner, seedListings, waitUntil } from "../support/PartnerKit.js"
import { freePort } from "../support/ServiceProcess.js"
import { startStripeFake } from "../support/StripeServer.js"
import * as TestServer from "../support/TestServer.js"

const WHSEC = "whsec_test_fake"

const fulfilled: Array<{ cartId: string; sessionId: string }> = []
/** The checkout service over the server's services, with a cart fulfilment that records what it is asked. */
const CheckoutWithRecordingCarts = Layer.provideMerge(CartCheckoutLive, Checkout.layer).pipe(
  Layer.provide(PaymentProvidersLive),
  Layer.provide(Layer.succeed(CartFulfilment, {
    paid: (input) => Effect.sync(() => void fulfilled.push(input)),
    committed: () => Effect.void
  }))
)

layer(Layer.empty, { timeout: 120_000 })("stripe provider", (it) => {
  it.scoped(
    "hosted Checkout Sessions: redirect, signed webhook, lost webhook, cancel, expiry, refund",
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
          CHECKOUT_RECONCILE_INTERVAL: "200 millis",
          CHECKOUT_RECONCILE_AFTER: "1 second"
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
        const get = (url: string) => Effect.promise(() => fetchReply(url))
        /** The buyer posts our page's form (no card) and is sent to Stripe: the Stripe session. */
        const toStripe = (checkoutUrl: string) =>
          Effect.gen(function*() {
            const reply = yield* run(payWith(ptOf(checkoutUrl), "", { baseUrl }))
            expect(reply.status, reply.text).toBe(303)
            const url = reply.headers.get("location")!
            expect(url.startsWith(`${stripe.baseUrl}/c/pay/cs_test_`)).toBe(true)
            return { url, stripeSession: stripe.sessions.get(url.slice(url.lastIndexOf("/") + 1))! }
          })
        yield* run(seedListings([
          { domain: "stripe-paid.com", environment: "live", bin: 250_000 },
          { domain: "stripe-lost-webhook.com", environment: "live" },
          { domain: "stripe-cancelled.com", environment: "live" },
          { domain: "stripe-expired.com", environment: "live" }
        ]))
        const sql = yield* run(SqlClient.SqlClient)

        // 1. Our page takes the buyer's details, never a card; paying sends the buyer to Stripe.
        const s = yield* open({ domain: "stripe-paid.com", return_url: "https://partner.example/thanks" })
        const form = yield* get(s.checkout_url)
        expect(form.status).toBe(200)
        expect(form.text).not.toContain(`name="card_number"`)
        expect(form.text).toContain("Stripe")
        const { stripeSession, url } = yield* toStripe(s.checkout_url)
        expect(stripeSession).toMatchObject({
          amount_total: 250_000,
          currency: "usd",
          client_reference_id: s.id,
          metadata: { session_id: s.id },
          customer_email: "buyer@example.org",
          line_items: [{ name: "Domain stripe-paid.com", unit_amount: 250_000, quantity: 1, currency: "usd" }]
        })
        expect(stripeSession.idempotencyKey).toBeTruthy()
        expect(stripeSession.success_url.startsWith(`${baseUrl}/checkout/return?pt=`)).toBe(true)
        expect(stripeSession.cancel_url).toBe(`${stripeSession.success_url}&cancelled=1`)
        // Reserved while the buyer is at Stripe; our page says so and leads back there.
        expect(yield* sessionStatus(s.id)).toBe("requires_action")
        const waiting = yield* get(s.checkout_url)
        expect(waiting.text).toContain("Finish your payment")
        expect(waiting.text).not.toContain(`name="card_number"`)

        // 2. The buyer pays at Stripe: the webhook arrives twice before the buyer's return. One order.
        const atStripe = yield* get(`${url}?action=pay`)
        expect(atStripe.status).toBe(303)
        expect(stripe.webhooksSent.map((w) => [w.type, w.status])).toEqual([
          ["checkout.session.completed", 200],
          ["checkout.session.completed", 200]
        ])
        expect(yield* run(ordersOfSession(s.id))).toHaveLength(1)
        const back = yield* get(atStripe.headers.get("location")!)
        expect(back.status).toBe(303)
        expect(back.headers.get("location")).toBe(`https://partner.example/thanks?session_id=${s.id}&status=paid`)
        expect(yield* run(ordersOfSession(s.id))).toHaveLength(1)
        const intent = stripeSession.payment_intent!
        const [ref] = yield* run(sql<{ external_payment_ref: string }>`
          select external_payment_ref from partner_orders where checkout_session_id = ${s.id}`)
        expect(ref!.external_payment_ref).toBe(intent)
        const [stored] = yield* run(sql<{ payment_ref: string; card_last4: string | null }>`
          select payment_ref, card_last4 from checkout_sessions where id = ${s.id}`)
        expect(stored).toEqual({ payment_ref: stripeSession.id, card_last4: null })
        expect(yield* sessionStatus(s.id)).toBe("paid")

        // 3. The same event again later (Stripe retries): still one order. Bad signatures: 400.
        const body = JSON.stringify({
          id: "evt_again",
          type: "checkout.session.completed",
          livemode: false,
          data: {
            object: {
              id: stripeSession.id,
              object: "checkout.session",
              status: "complete",
              payment_status: "paid",
              amount_total: 250_000,
              currency: "usd",
              client_reference_id: s.id,
              livemode: false,
              payment_intent: intent
            }
          }
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

        // 4. A lost webhook and a buyer who never comes back: the reconciliation poll asks Stripe.
        stripe.checkout.webhookTimes = 0
        const lost = yield* open({ domain: "stripe-lost-webhook.com" })
        const lostAt = yield* toStripe(lost.checkout_url)
        yield* Effect.promise(() => stripe.pay(lostAt.stripeSession.id))
        expect(yield* run(waitUntil(ordersOfSession(lost.id), (rows) => rows.length === 1, 20_000))).toHaveLength(1)
        expect(yield* sessionStatus(lost.id)).toBe("paid")
        stripe.checkout.webhookTimes = 1

        // 5. The buyer cancels at Stripe: the Stripe session is expired, the domain given back.
        const c = yield* open({ domain: "stripe-cancelled.com" })
        const cAt = yield* toStripe(c.checkout_url)
        const cancelled = yield* get(`${cAt.url}?action=cancel`)
        const ours = yield* get(cancelled.headers.get("location")!)
        expect(ours.text).toContain("You cancelled the payment")
        expect(ours.text).not.toContain(`name="card_number"`)
        expect(cAt.stripeSession.status).toBe("expired")
        expect(yield* sessionStatus(c.id)).toBe("open")
        const other = yield* open({ domain: "stripe-cancelled.com" })
        yield* toStripe(other.checkout_url) // another buyer may pay for it now

        // 6. Stripe expires the session (checkout.session.expired): the domain is free, the buyer may start again.
        const e = yield* open({ domain: "stripe-expired.com" })
        const eAt = yield* toStripe(e.checkout_url)
        yield* Effect.promise(() => stripe.expire(eAt.stripeSession.id))
        expect(yield* sessionStatus(e.id)).toBe("open")
        const again = yield* toStripe(e.checkout_url)
        expect(again.stripeSession.id).not.toBe(eAt.stripeSession.id)
        yield* Effect.promise(() => stripe.pay(again.stripeSession.id))
        expect(yield* sessionStatus(e.id)).toBe("paid")

        // 7. A refund of the paid order gives the buyer's money back at Stripe (its PaymentIntent), once.
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
        expect(stripe.refunds).toEqual([intent])
        expect(stripe.intents.get(intent)?.refunded).toBe(true)
        yield* Effect.sleep("500 millis") // further reconciliation runs refund nothing more
        expect(stripe.refunds).toEqual([intent])

        // 8. A cart pays through the same provider: one Stripe line per item; the buyer's return completes it.
        yield* run(
          Effect.gen(function*() {
            const carts = yield* CartCheckout
            const checkout = yield* Checkout
            const cart = yield* carts.open({
              cartId: "cart_stripe_1",
              userId: "usr_1",
              buyerEmail: "owner@example.org",
              currency: "USD",
              items: [
                { domain: "mine-one.com", op: "renew", years: 2, priceCents: 2_598 },
                { domain: "mine-two.net", op: "restore", years: 1, priceCents: 8_000 }
              ],
              totalCents: 10_598
            })
            const started = yield* checkout.pay(cart.sessionId, {
              email: "owner@example.org",
              name: "Owner",
              country: "DE",
              cardNumber: "",
              cardExp: "",
              cardCvc: ""
            })
            expect(started._tag).toBe("RequiresAction")
            const cartUrl = (started as { redirectUrl: string }).redirectUrl
            const cartSession = stripe.sessions.get(cartUrl.slice(cartUrl.lastIndexOf("/") + 1))!
            expect(cartSession.amount_total).toBe(10_598)
            expect(cartSession.line_items.map((l) => [l.name, l.unit_amount])).toEqual([
              ["Renewal of mine-one.com, 2 years", 2_598],
              ["Restore of mine-two.net, 1 year", 8_000]
            ])
            stripe.checkout.webhookTimes = 0
            yield* Effect.promise(() => stripe.pay(cartSession.id))
            const returned = yield* checkout.afterAction(cart.sessionId, false)
            expect(returned._tag).toBe("Paid")
            expect(fulfilled).toEqual([{ cartId: "cart_stripe_1", sessionId: cart.sessionId }])
            expect(yield* ordersOfSession(cart.sessionId)).toHaveLength(0)

            // 9. An item the registrar refused after payment is given back: that part of the payment,
            // through the Refunds API with its amount, once however often the refund is retried.
            const part = { cartId: "cart_stripe_1", amountCents: 8_000, key: "cart:cart_stripe_1:items:item_2" }
            expect(yield* carts.refund(part)).toBe(true)
            expect(yield* carts.refund(part)).toBe(true)
            const paidIntent = stripe.sessions.get(cartSession.id)!.payment_intent!
            expect(stripe.refundAmounts.filter((r) => r.paymentIntent === paidIntent)).toEqual([
              { paymentIntent: paidIntent, amount: 8_000 }
            ])
            expect(stripe.intents.get(paidIntent)?.refunded).toBe(false)
            const session = yield* checkout.byId(cart.sessionId)
            expect(Option.map(session, (s) => s.status)).toEqual(Option.some("paid"))
          }).pipe(Effect.provide(CheckoutWithRecordingCarts))
        )
      }),
    120_000
  )
})
