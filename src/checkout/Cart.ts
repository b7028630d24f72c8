/**
 * The seam between bulk renew/restore (src/portfolio) and the hosted checkout (src/checkout).
 *
 * Bulk `renew`/`restore` prices each item and asks `CartCheckout.open` for one hosted checkout of
 * the whole cart; it answers `checkoutPath` (`/checkout?pt=…`, same page, same PaymentProvider).
 * When that checkout is paid, the checkout calls `CartFulfilment.paid` inside the payment's
 * database transaction; the portfolio enqueues the registrar work there as a durable job, so a
 * paid cart is never lost and never run twice. After the commit the checkout calls `committed`,
 * which wakes the job's workers (an enqueue's own wake-up, inside the transaction, is too early).
 * An item the registrar still refuses after payment is refunded through `CartCheckout.refund`
 * (the cart's payment, at its provider); the portfolio then marks it and posts the reversal.
 *
 * `CartCheckout.Unavailable` fails every open (until the checkout layer is provided);
 * `CartFulfilment.None` does nothing.
 */
import { Context, Effect, Layer } from "effect"

export interface CartItem {
  readonly domain: string
  readonly op: "renew" | "restore"
  readonly years: number
  readonly priceCents: number
}

export interface CartInput {
  readonly cartId: string
  readonly userId: string
  readonly buyerEmail: string
  readonly currency: string
  readonly items: ReadonlyArray<CartItem>
  readonly totalCents: number
}

export class CartCheckoutUnavailable extends Error {
  readonly _tag = "CartCheckoutUnavailable"
}

export class CartCheckout extends Context.Tag("app/CartCheckout")<CartCheckout, {
  /** One hosted checkout session for the cart; idempotent per `cartId`. */
  readonly open: (
    cart: CartInput
  ) => Effect.Effect<{ readonly sessionId: string; readonly checkoutPath: string }, CartCheckoutUnavailable>
  /**
   * Gives `amountCents` of the cart's payment back at its provider; true when refunded. Safe to
   * repeat (the provider's refund is idempotent by the payment). False: retry later.
   */
  readonly refund: (
    input: { readonly cartId: string; readonly amountCents: number; readonly key: string }
  ) => Effect.Effect<boolean>
}>() {
  static readonly Unavailable = Layer.succeed(CartCheckout, {
    open: () => Effect.fail(new CartCheckoutUnavailable("hosted checkout is not available")),
    refund: () => Effect.succeed(false)
  })
}

export class CartFulfilment extends Context.Tag("app/CartFulfilment")<CartFulfilment, {
  /** The cart was paid (called in the payment's transaction): enqueue its registrar work. */
  readonly paid: (input: { readonly cartId: string; readonly sessionId: string }) => Effect.Effect<void>
  /** The payment's transaction committed (after a `paid`): start the registrar work now, not at the next poll. */
  readonly committed: (input: { readonly cartId: string; readonly sessionId: string }) => Effect.Effect<void>
}>() {
  static readonly None = Layer.succeed(CartFulfilment, { paid: () => Effect.void, committed: () => Effect.void })
}
