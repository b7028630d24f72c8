/**
 * Nothing paid is ever lost: the service process is killed (SIGKILL) after Stripe confirmed the
 * payment and before our order exists (the fake never answers the confirm call, and no webhook
 * comes). A new process reconciles the stuck session with the provider at boot and creates the
 * one order.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { CARDS, openSession, ordersOfSession, payWith, ptOf } from "../support/CheckoutKit.js"
import { createPartner, seedListings, waitUntil } from "../support/PartnerKit.js"
import { startServiceProcess } from "../support/ServiceProcess.js"
import { startStripeFake } from "../support/StripeServer.js"
import * as TestServer from "../support/TestServer.js"

layer(Layer.empty, { timeout: 300_000 })("checkout reconciliation", (it) => {
  it.scoped(
    "kill -9 between the provider's confirmation and our order: the restarted service completes the order",
    () =>
      Effect.gen(function*() {
        const stripe = yield* startStripeFake()
        stripe.checkout.hangConfirm = true
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
          const paying = yield* Effect.fork(run(payWith(pt, CARDS.ok, { baseUrl: a.baseUrl })))
          // The provider has charged the card ...
          const charged = yield* waitUntil(
            Effect.sync(() =>
              [...stripe.intents.values()].some((pi) => pi.metadata.session_id === s.id && pi.status === "succeeded")
            ),
            (ok) => ok,
            60_000
          )
          expect(charged, a.output().slice(-3000)).toBe(true)
          // ... and the process dies before it hears back.
          a.child.kill("SIGKILL")
          yield* Effect.promise(() => new Promise((resolve) => a.child.once("exit", resolve)))
          yield* Effect.ignore(paying.await)
          return [a.child.signalCode, a.output()] as const
        }))
        expect(first[0]).toBe("SIGKILL")
        expect(yield* run(ordersOfSession(s.id))).toHaveLength(0)

        stripe.checkout.hangConfirm = false
        const b = yield* startServiceProcess(env)
        const orders = yield* run(waitUntil(ordersOfSession(s.id), (rows) => rows.length > 0, 60_000))
        const row = yield* run(
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql`select status, payment_ref, attempt, last_error, processing_since, now() as now from checkout_sessions where id = ${s.id}`)
        )
        expect(orders, `${JSON.stringify(row)}\n${b.output().slice(-3000)}`).toHaveLength(1)
        expect(orders[0]).toMatchObject({ status: "PAID", payment_model: "hosted_checkout" })
        expect(stripe.confirms.filter((c) =>
          c.id === orders[0]!.id
        )).toHaveLength(0)
        expect(stripe.confirms).toHaveLength(1) // charged once, never again
      }),
    300_000
  )
})
