/**
 * What a payment provider is to the checkout (src/checkout/PaymentProvider.ts explains the two
 * flows and holds the providers): kept apart so each provider's module can implement it without
 * importing the module that chooses between them.
 */
import type { Effect, Option } from "effect"
import type { Card, ReportedPayment } from "../domain/Checkout.js"

export type PaymentOutcome =
  | { readonly status: "succeeded"; readonly payment?: ReportedPayment }
  | { readonly status: "declined"; readonly message: string }
  | { readonly status: "requires_action"; readonly redirectUrl: string | null }
  | { readonly status: "unknown"; readonly reason: string }

export interface PaymentStart {
  readonly sessionId: string
  readonly attempt: number
  readonly amountCents: number
  readonly currency: string
  readonly email: string
  readonly description: string
  /** What the buyer pays for, one line each (amounts add up to `amountCents`). */
  readonly lines: ReadonlyArray<{ readonly name: string; readonly amountCents: number }>
  /** The card from our form (`card` flow only; null in the `hosted` flow). */
  readonly card: Card | null
  /** Where the provider's page sends the buyer back: after paying, and when they cancel. */
  readonly returnUrl: string
  readonly cancelUrl: string
}

export interface PaymentProviderShape {
  readonly name: "sandbox" | "stripe"
  /** `card`: our page takes the card. `hosted`: the buyer pays on the provider's page (`create`'s URL). */
  readonly flow: "card" | "hosted"
  /** Creates the payment without charging: the reference to store, and (hosted) the page to send the buyer to. */
  readonly create: (
    p: PaymentStart
  ) => Effect.Effect<{ readonly ref: string; readonly redirectUrl: string | null }, PaymentUnavailable>
  /** Charges the card (`card` flow). `returnUrl`: where a confirmation step (3-D Secure) sends the buyer back. */
  readonly confirm: (ref: string, p: PaymentStart, returnUrl: string) => Effect.Effect<PaymentOutcome>
  /** What the provider knows about the payment now (the buyer's return, reconciliation). */
  readonly retrieve: (ref: string) => Effect.Effect<PaymentOutcome>
  /** The buyer completed the confirmation step on our own page (sandbox only). */
  readonly completeAction: (ref: string) => Effect.Effect<PaymentOutcome>
  /** The buyer gave up (or never came back): stop the payment if it can still be stopped; then its state. */
  readonly cancel: (ref: string) => Effect.Effect<PaymentOutcome>
  /**
   * Gives the money back (refund or cancellation of the order, or the domain sold meanwhile): all
   * of it, or `part.amountCents` of it (a cart item refused after payment) under `part.key`, which
   * makes a retried partial refund the same refund at the provider. True when refunded.
   */
  readonly refund: (
    ref: string,
    part?: { readonly amountCents: number; readonly key: string }
  ) => Effect.Effect<boolean>
  /** A provider event (its signature already verified) about one of its payments; None: not a payment event. */
  readonly readEvent: (
    event: unknown
  ) => Option.Option<{ readonly type: string; readonly payment: ReportedPayment; readonly outcome: PaymentOutcome }>
}

export class PaymentUnavailable extends Error {
  readonly _tag = "PaymentUnavailable"
}
