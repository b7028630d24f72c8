/**
 * Nothing paid is ever lost: the service process is killed (SIGKILL) while the buyer is on
 * Stripe's payment page; the buyer pays there, Stripe's webhook finds no one and the buyer's
 * return fails. A new process reconciles the session with Stripe at boot
 * (`GET /v1/checkout/sessions/{id}`) and creates the one order.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { openSession, ordersOfSession, payWith, ptOf } from "../support/CheckoutKit.js"
import { fetchReply } from "../support/http.js"
import { createPartner, seedListings, waitUntil } from "../support/PartnerKit.js"
import { startServiceProcess } from "../support/ServiceProcess.js"
import { startStripeFake } from "../support/StripeServer.js"
import * as TestServer from "../support/TestServer.js"

layer(Layer.empty, { timeout: 300_000 })("checkout reconciliation", (it) => {
  it.scoped(
    "kill -9 while the buyer pays at Stripe: the restarted service completes the order",
    () =>
      Effect.gen(function*() {
        const stripe = yield* startStripeFake()
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        // This in-process server only seeds and reads; it runs no workers (no reconciliation of its own).
        const local = yield* Layer.build(TestServer.layer({ WORKERS: "false" }, { databaseUrl }))
        const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, local) as Effect.Effect<A, E>
        const env = {
          DATABASE_URL: databaseUrl,
          PAYMENT_PROVIDER: "stripe",
          STRIPE_API_KEY: stripe.apiKey,
          STRIPE_API_BASE: stripe.baseUrl,
          CHECKOUT_RECONCILE_AFTER: "1 second",
          CHECKOUT_RECONCILE_INTERVAL: "1 second"
        }
        const cred = yield* run(createPartner({ environment: "live", scopes: ["embed"] }))
        yield* run(seedListings([{ domain: "killed-mid-payment.com", environment: "live" }]))
        const s = (yield* run(openSession(cred, { domain: "killed-mid-payment.com" }))).json
        const pt = ptOf(s.checkout_url)

        const first = yield* Effect.scoped(Effect.gen(function*() {
          const a = yield* startServiceProcess({
            ...env,
            CHECKOUT_RECONCILE_INTERVAL: "0 seconds",
            CHECKOUT_RECONCILE_AFTER: "1 hour"
          })
          stripe.checkout.webhookUrl = `${a.baseUrl}/api/checkout/stripe/webhook`
          const toStripe = yield* run(payWith(pt, "", { baseUrl: a.baseUrl }))
          expect(toStripe.status, a.output().slice(-3000)).toBe(303)
          const url = toStripe.headers.get("location")!
          // The process dies while the buyer is on Stripe's page ...
          a.child.kill("SIGKILL")
          yield* Effect.promise(() => new Promise((resolve) => a.child.once("exit", resolve)))
          // ... and the buyer pays there: the webhook finds no one.
          const paid = yield* Effect.promise(() => fetchReply(`${url}?action=pay`))
          expect(paid.status).toBe(303)
          expect(stripe.webhooksSent.map((w) => w.status)).toEqual([0])
          return [a.child.signalCode, a.output()] as const
        }))
        expect(first[0]).toBe("SIGKILL")
        expect(yield* run(ordersOfSession(s.id))).toHaveLength(0)

        const b = yield* startServiceProcess(env)
        const orders = yield* run(waitUntil(ordersOfSession(s.id), (rows) => rows.length > 0, 60_000))
        const row = yield* run(
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql`select status, payment_ref, attempt, last_error, processing_since, now() as now from checkout_sessions where id = ${s.id}`)
        )
        expect(orders, `${JSON.stringify(row)}\n${b.output().slice(-3000)}`).toHaveLength(1)
        expect(orders[0]).toMatchObject({ status: "PAID", payment_model: "hosted_checkout" })
        expect(stripe.sessions.size).toBe(1) // one Stripe session, paid once
        expect(stripe.intents.size).toBe(1)
      }),
    300_000
  )
})
