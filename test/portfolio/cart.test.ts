/**
 * Bulk renew/restore through the cart seam, at the service level with stand-ins for the hosted
 * checkout (CartCheckout), the catalogue and the registrar (the sandbox registrar, no latency), on
 * the real database: one priced cart, one checkout; a paid cart becomes one durable job that
 * renews/restores each item once through the registrar (a restore the registry rejects fails its
 * item, which is refunded and reversed in the ledger); a second `paid` for the same cart enqueues nothing.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import { Catalogue } from "../../src/catalogue/Catalogue.js"
import { CartCheckout, CartFulfilment } from "../../src/checkout/Cart.js"
import { Notifications } from "../../src/notifications/Notifications.js"
import { Books } from "../../src/partner/ledger/Books.js"
import { Jobs, JobsLive } from "../../src/platform/jobs/Jobs.js"
import { BulkRequest } from "../../src/portfolio/Api.js"
import { Bulk, CART_JOB } from "../../src/portfolio/Bulk.js"
import { PortfolioConfig } from "../../src/portfolio/Config.js"
import { makeCartFulfilment } from "../../src/portfolio/Fulfilment.js"
import { Registrar } from "../../src/portfolio/Registrar.js"
import { PortfolioRepo } from "../../src/portfolio/Repo.js"
import { createTestUser } from "../support/identity.js"
import * as TestServer from "../support/TestServer.js"

const opened: Array<{ cartId: string; totalCents: number; items: number }> = []
const refunds: Array<{ cartId: string; amountCents: number; key: string }> = []

const StandIns = Layer.mergeAll(
  Registrar.Test,
  Layer.succeed(
    Catalogue,
    Catalogue.make({
      getPrice: (_tld: string, op: string) => Effect.succeed(Option.some(op === "renew" ? 1299 : 8000)),
      getMetadata: () => Effect.succeed(Option.some({ allowedYears: [1, 2, 3], minNameservers: 2, maxNameservers: 13 }))
    } as any)
  ),
  Layer.succeed(CartCheckout, {
    open: (cart) =>
      Effect.sync(() => {
        opened.push({ cartId: cart.cartId, totalCents: cart.totalCents, items: cart.items.length })
        return { sessionId: `cs_${cart.cartId}`, checkoutPath: `/checkout?pt=test-${cart.cartId}` }
      }),
    refund: (input) => Effect.sync(() => (refunds.push(input), true))
  }),
  Layer.succeed(PortfolioConfig, {
    registrarConcurrency: 16,
    sandboxLatency: { min: Duration.zero, max: Duration.zero },
    jobConcurrency: 1
  })
)

const BulkUnderTest = Layer.effect(CartFulfilment, makeCartFulfilment).pipe(
  Layer.provideMerge(Bulk.Live),
  Layer.provideMerge(
    Layer.mergeAll(
      StandIns,
      PortfolioRepo.Live,
      Books.Live,
      Notifications.Live,
      JobsLive({ lease: Duration.seconds(10), retention: Duration.days(1) })
    )
  )
)

// WORKERS=false: the server's own workers must not claim the cart jobs this test's stand-ins run.
layer(TestServer.layer({ WORKERS: "false" }), { timeout: 180_000 })("cart seam", (it) => {
  it.effect("renew three into one cart; paid → one job renews each once; a restore the registry rejects is refunded", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser({
        domains: ["cart-a.com", "cart-b.net", "premium-cart.org", "redemption-rejected.com"]
      })
      const sql = yield* SqlClient.SqlClient
      yield* Effect.gen(function*() {
        const bulk = yield* Bulk
        const fulfilment = yield* CartFulfilment
        const jobs = yield* Jobs
        const before = new Map(
          (yield* sql<
            { domain: string; expires_at: Date }
          >`select domain, expires_at from user_domains where user_id = ${user.id}`).map((
            r
          ) => [r.domain, r.expires_at])
        )

        const renew = yield* bulk.bulk(
          { id: user.id, email: user.email },
          "renew",
          new BulkRequest({ domains: ["cart-a.com", "cart-b.net", "premium-cart.org"], payload: { years: 2 } })
        )
        expect(renew).toMatchObject({ addedToCart: true, totalCents: 2 * 1299 * 2 + 2 * 25_000 })
        expect((renew as any).cartItemIds).toHaveLength(3)
        expect((renew as any).checkoutPath).toMatch(/^\/checkout\?pt=test-cart_/)
        const cartId = opened.at(-1)!.cartId
        expect(opened.at(-1)).toEqual({ cartId, totalCents: 2 * 1299 * 2 + 2 * 25_000, items: 3 })

        const restore = yield* bulk.bulk(
          { id: user.id, email: user.email },
          "restore",
          new BulkRequest({ domains: ["redemption-rejected.com"] })
        )
        const restoreCart = opened.at(-1)!.cartId
        expect(restore).toMatchObject({ addedToCart: true, totalCents: 8000 })

        yield* fulfilment.paid({ cartId, sessionId: `cs_${cartId}` })
        yield* fulfilment.paid({ cartId, sessionId: `cs_${cartId}` }) // a replayed notification: nothing more
        yield* fulfilment.paid({ cartId: restoreCart, sessionId: `cs_${restoreCart}` })
        const queued = yield* sql<{ n: string }>`select count(*) as n from jobs where kind = ${CART_JOB}`
        expect(Number(queued[0].n)).toBe(2)

        yield* Effect.scoped(Effect.gen(function*() {
          yield* jobs.work(CART_JOB, bulk.runCart, { concurrency: 1, pollInterval: "100 millis" })
          for (let i = 0; i < 600; i++) {
            const pending = yield* sql<
              { n: string }
            >`select count(*) as n from carts where status <> 'done'`
            if (Number(pending[0].n) === 0) break
            yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
          }
        }))
        const items = yield* sql<
          { domain: string; status: string; error: string | null }
        >`select domain, status, error from cart_items order by domain`
        expect(items.map((i) => [i.domain, i.status])).toEqual([
          ["cart-a.com", "succeeded"],
          ["cart-b.net", "succeeded"],
          ["premium-cart.org", "succeeded"],
          ["redemption-rejected.com", "refunded"]
        ])
        expect(items.find((i) => i.domain === "redemption-rejected.com")!.error).toMatch(/rejected/)
        expect(refunds).toEqual([{
          cartId: restoreCart,
          amountCents: 8000,
          key: expect.stringMatching(/^cart:.*:items:/)
        }])
        const ledger = yield* sql<{ natural_key: string }>`
          select natural_key from ledger_transactions where natural_key like 'cart:%' order by natural_key`
        const keys = ledger.map((t) => t.natural_key)
        expect(keys).toHaveLength(3)
        expect(keys).toContain(`cart:${cartId}:paid`)
        expect(keys).toContain(`cart:${restoreCart}:paid`)
        expect(keys.filter((k) => k.startsWith(`cart:${restoreCart}:item:cit_`))).toHaveLength(1)
        const after = yield* sql<
          { domain: string; expires_at: Date }
        >`select domain, expires_at from user_domains where user_id = ${user.id}`
        for (const row of after) {
          if (row.domain === "redemption-rejected.com") continue
          const years = (row.expires_at.getTime() - before.get(row.domain)!.getTime()) / (365 * 86_400_000)
          expect(years, row.domain).toBeGreaterThan(1.9)
        }
        const carts = yield* sql<{ status: string }>`select status from carts where id = ${cartId}`
        expect(carts[0].status).toBe("done")
      }).pipe(Effect.provide(BulkUnderTest.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql)))))
    }))

  it.effect("a cart paid in the checkout's transaction runs once committed, without waiting for the workers' next poll", () =>
    Effect.gen(function*() {
      const user = yield* createTestUser({ domains: ["woken-cart.com"] })
      const sql = yield* SqlClient.SqlClient
      yield* Effect.gen(function*() {
        const bulk = yield* Bulk
        const fulfilment = yield* CartFulfilment
        const jobs = yield* Jobs
        yield* bulk.bulk({ id: user.id, email: user.email }, "renew", new BulkRequest({ domains: ["woken-cart.com"] }))
        const cartId = opened.at(-1)!.cartId
        yield* Effect.scoped(Effect.gen(function*() {
          // A poll far beyond the test's patience: only a wake-up can start the job in time.
          yield* jobs.work(CART_JOB, bulk.runCart, { concurrency: 1, pollInterval: "10 minutes" })
          yield* Effect.sleep("300 millis") // the worker's first (empty) claim is behind it
          // As the checkout does: `paid` inside the payment's transaction, `committed` after it.
          yield* sql.withTransaction(fulfilment.paid({ cartId, sessionId: `cs_${cartId}` })).pipe(Effect.orDie)
          yield* fulfilment.committed({ cartId, sessionId: `cs_${cartId}` })
          let status = "pending"
          for (let i = 0; i < 100 && status !== "succeeded"; i++) {
            yield* Effect.sleep("100 millis")
            const rows = yield* sql<{ status: string }>`select status from cart_items where cart_id = ${cartId}`
            status = rows[0]!.status
          }
          expect(status).toBe("succeeded")
        }))
      }).pipe(Effect.provide(BulkUnderTest.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql)))))
    }))
})
