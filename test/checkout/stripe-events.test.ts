/**
 * A provider event completes a session only when it matches a payment the service itself started
 * for that session (issue 29, item 14): provider, payment id, amount, currency and environment.
 * Anything else is logged and answered 200 (so Stripe stops retrying), and changes nothing.
 *
 * The events are validly signed with STRIPE_WEBHOOK_SECRET: the signature proves only that they
 * came from Stripe's account, not that they are about a payment we started.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { stripeSignatureHeader } from "../../src/domain/Checkout.js"
import { CARDS, openSession, ordersOfSession, payWith, ptOf } from "../support/CheckoutKit.js"
import { fetchReply } from "../support/http.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"
import { freePort } from "../support/ServiceProcess.js"
import { startStripeFake, type StripeFake } from "../support/StripeServer.js"
import * as TestServer from "../support/TestServer.js"

const WHSEC = "whsec_test_events"

class Stripe extends Context.Tag("test/StripeFake")<Stripe, StripeFake>() {}

/** The service in Stripe mode (PAYMENT_PROVIDER=stripe) against the loopback fake; no reconciliation runs. */
const StripeMode = Layer.unwrapScoped(Effect.gen(function*() {
  const stripe = yield* startStripeFake()
  stripe.checkout.webhookSecret = WHSEC
  const port = yield* freePort()
  return Layer.merge(
    Layer.succeed(Stripe, stripe),
    TestServer.layer({
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      PAYMENT_PROVIDER: "stripe",
      STRIPE_API_KEY: stripe.apiKey,
      STRIPE_API_BASE: stripe.baseUrl,
      STRIPE_WEBHOOK_SECRET: WHSEC,
      CHECKOUT_RECONCILE_INTERVAL: "0 seconds"
    })
  )
}))

/** Posts `event` to our webhook endpoint, signed with the right secret and a fresh timestamp. */
const deliver = (event: unknown) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer.TestServer
    const body = JSON.stringify(event)
    return yield* Effect.promise(() =>
      fetchReply(`${baseUrl}/api/checkout/stripe/webhook`, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "stripe-signature": stripeSignatureHeader(WHSEC, body, Math.floor(Date.now() / 1000))
        }
      })
    )
  })

const sessionRow = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<
        { status: string; payment_ref: string | null }
      >`select status, payment_ref from checkout_sessions where id = ${id}`
  ).pipe(Effect.map((rows) => rows[0]!), Effect.orDie)

const piSucceeded = (id: string, metadata: Record<string, string>, amount = 150_000, currency = "usd") => ({
  id: `evt_${id}`,
  object: "event",
  type: "payment_intent.succeeded",
  livemode: false,
  data: {
    object: { id, object: "payment_intent", amount, amount_received: amount, currency, status: "succeeded", metadata }
  }
})

layer(StripeMode, { timeout: 120_000 })("stripe events that match no payment of ours", (it) => {
  it.effect("a signed payment_intent.succeeded naming an open session, or a sandbox payment, pays nothing", () =>
    Effect.gen(function*() {
      const sandbox = yield* createPartner({ environment: "sandbox", scopes: ["embed"] })
      const live = yield* createPartner({ environment: "live", scopes: ["embed"] })
      yield* seedListings([
        { domain: "forged-open-sandbox.dev", environment: "sandbox" },
        { domain: "forged-open-live.com", environment: "live" },
        { domain: "forged-3ds-sandbox.dev", environment: "sandbox" }
      ])
      const openSandbox = (yield* openSession(sandbox, { domain: "forged-open-sandbox.dev" })).json
      const openLive = (yield* openSession(live, { domain: "forged-open-live.com" })).json
      // A sandbox payment waiting for its confirmation step: a payment we started, with the sandbox provider.
      const pending = (yield* openSession(sandbox, { domain: "forged-3ds-sandbox.dev" })).json
      expect((yield* payWith(ptOf(pending.checkout_url), CARDS.action)).status).toBe(200)
      const pendingRef = (yield* sessionRow(pending.id)).payment_ref!
      expect(pendingRef).toMatch(/^pi_sbx_/)

      const forged: Array<{ readonly session: string; readonly event: any }> = [
        // The reproduction: an open session, no payment attempt, an unknown intent.
        { session: openSandbox.id, event: piSucceeded("pi_unknown_123", { session_id: openSandbox.id }) },
        { session: openLive.id, event: piSucceeded("pi_unknown_123", { session_id: openLive.id }) },
        // The sandbox provider's own payment reference, reported by Stripe: wrong provider.
        { session: pending.id, event: piSucceeded(pendingRef, { session_id: pending.id }) },
        { session: pending.id, event: piSucceeded(pendingRef, {}) },
        {
          session: pending.id,
          event: {
            id: "evt_provider",
            object: "event",
            type: "checkout.session.completed",
            livemode: false,
            data: {
              object: {
                id: pendingRef,
                object: "checkout.session",
                status: "complete",
                payment_status: "paid",
                amount_total: 150_000,
                currency: "usd",
                client_reference_id: pending.id,
                livemode: false
              }
            }
          }
        }
      ]
      // A Stripe expiry naming the sandbox payment does not give its reservation back either.
      forged.push({
        session: pending.id,
        event: { ...forged.at(-1)!.event, type: "checkout.session.expired", id: "evt_expired" }
      })
      for (const { event, session } of forged) {
        const reply = yield* deliver(event)
        expect(reply.status, reply.text).toBe(200)
        expect(yield* ordersOfSession(session), JSON.stringify(event)).toHaveLength(0)
      }
      expect((yield* sessionRow(openSandbox.id)).status).toBe("open")
      expect((yield* sessionRow(openLive.id)).status).toBe("open")
      expect((yield* sessionRow(pending.id)).status).toBe("requires_action")
    }))

  it.effect("checkout.session events complete a session only for the Stripe session we started, as we started it", () =>
    Effect.gen(function*() {
      const stripe = yield* Stripe
      const { baseUrl } = yield* TestServer.TestServer
      const live = yield* createPartner({ environment: "live", scopes: ["embed"] })
      yield* seedListings([
        { domain: "matched-event.com", environment: "live", bin: 420_000 },
        { domain: "other-open.com", environment: "live" }
      ])
      const s = (yield* openSession(live, { domain: "matched-event.com" })).json
      const otherOpen = (yield* openSession(live, { domain: "other-open.com" })).json
      const toStripe = yield* payWith(ptOf(s.checkout_url), "", { baseUrl })
      expect(toStripe.status, toStripe.text).toBe(303)
      const started = (yield* sessionRow(s.id)).payment_ref!
      expect(started).toMatch(/^cs_test_/)
      const ours = {
        id: started,
        object: "checkout.session",
        status: "complete",
        payment_status: "paid",
        amount_total: 420_000,
        currency: "usd",
        client_reference_id: s.id,
        metadata: { session_id: s.id },
        livemode: false,
        payment_intent: "pi_matched_1"
      }
      const completed = (object: Record<string, unknown>) => ({
        id: `evt_${Math.random().toString(36).slice(2)}`,
        object: "event",
        type: "checkout.session.completed",
        livemode: object.livemode,
        data: { object }
      })
      const mismatches: Array<[string, Record<string, unknown>]> = [
        ["a Stripe session we never started", { ...ours, id: "cs_test_forged" }],
        ["another amount", { ...ours, amount_total: 1 }],
        ["another currency", { ...ours, currency: "eur" }],
        ["the other mode (environment)", { ...ours, livemode: true }],
        ["naming another session", {
          ...ours,
          client_reference_id: otherOpen.id,
          metadata: { session_id: otherOpen.id }
        }],
        ["an open session of ours, no payment started", {
          ...ours,
          id: "cs_test_forged2",
          client_reference_id: otherOpen.id,
          metadata: { session_id: otherOpen.id }
        }],
        ["not paid yet", { ...ours, payment_status: "unpaid" }]
      ]
      for (const [why, object] of mismatches) {
        const reply = yield* deliver(completed(object))
        expect(reply.status, `${why}: ${reply.text}`).toBe(200)
        expect(yield* ordersOfSession(s.id), why).toHaveLength(0)
        expect(yield* ordersOfSession(otherOpen.id), why).toHaveLength(0)
        expect((yield* sessionRow(s.id)).status, why).toBe("requires_action")
      }
      expect((yield* sessionRow(otherOpen.id)).status).toBe("open")
      // An expiry of a Stripe session that is not ours releases nothing.
      yield* deliver({
        ...completed({ ...ours, id: "cs_test_forged", status: "expired" }),
        type: "checkout.session.expired"
      })
      expect((yield* sessionRow(s.id)).status).toBe("requires_action")

      // The event about the payment we started, as we started it: paid, one order, the intent as its reference.
      expect((yield* deliver(completed(ours))).status).toBe(200)
      const [order] = yield* ordersOfSession(s.id)
      expect(order).toMatchObject({ status: "PAID", payment_model: "hosted_checkout" })
      expect(stripe.sessions.get(started)?.client_reference_id).toBe(s.id)
    }))
})
