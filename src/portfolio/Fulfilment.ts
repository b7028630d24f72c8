/**
 * The portfolio's side of the cart seam (src/checkout/Cart.ts): when the hosted checkout is paid,
 * `paid` runs inside the payment's transaction, marks the cart paid (once), posts the payment in
 * the ledger (docs/money.md#carts) and enqueues a durable
 * `portfolio:cart` job that renews/restores each item through the registrar (Bulk.runCart).
 *
 * Kept apart from the Bulk service so the checkout (which needs CartFulfilment) and bulk
 * renew/restore (which needs CartCheckout) do not depend on each other in a cycle.
 */
import { Effect, Layer, Option } from "effect"
import { CartFulfilment } from "../checkout/Cart.js"
import { Books, postCartPaid } from "../partner/ledger/Books.js"
import { Jobs } from "../platform/jobs/Jobs.js"
import { PortfolioRepo } from "./Repo.js"

export const CART_JOB = "portfolio:cart"

export const makeCartFulfilment = Effect.gen(function*() {
  const repo = yield* PortfolioRepo
  const jobs = yield* Jobs
  const books = yield* Books
  return CartFulfilment.of({
    paid: (input) =>
      Effect.gen(function*() {
        const first = yield* repo.markCartPaid(input.cartId, input.sessionId)
        if (Option.isNone(first)) return // a replayed notification: the cart's job exists already
        // The buyer's payment, in the books in the same transaction as the cart's move to paid.
        yield* postCartPaid(books, {
          id: first.value.id,
          sessionId: input.sessionId,
          currency: first.value.currency,
          totalCents: first.value.total_cents
        })
        const job = yield* jobs.enqueue(CART_JOB, { cartId: input.cartId }, { maxAttempts: 10 })
        yield* repo.setCartJob(input.cartId, job.id)
      }),
    // The enqueue's own wake-up came before the payment's commit, when no worker could see the job.
    committed: () => jobs.wake(CART_JOB)
  })
})

/** Needs the SqlClient, the job queue and the ledger's Books. */
export const CartFulfilmentLive = Layer.effect(CartFulfilment, makeCartFulfilment).pipe(
  Layer.provide(PortfolioRepo.Live)
)
