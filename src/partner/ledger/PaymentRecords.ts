/**
 * The ledger's port onto the payment provider layer's own records (`ledger verify` reads them to
 * reconcile the other way: what the provider took and gave back equals the ledger's cash).
 *
 * Declared here, implemented by the checkout slice (src/checkout/PaymentRecords.ts), which owns
 * the payments (`checkout_sessions`); src/app/Layers.ts provides it. So the ledger imports no
 * checkout code and reads no checkout SQL.
 *
 * Contract: one record per payment the provider captured (a paid session, later refunded or
 * not), with what the provider holds for it now. `refundPendingCents`: the sale was undone in our
 * books (order refunded or cancelled) and the provider refund is still to be sent (the checkout's
 * reconciliation worker sends it).
 */
import { Context, Effect, Layer } from "effect"

export interface PaymentRecord {
  /** The payment's id at our side: the checkout session (`cs_…`). */
  readonly paymentId: string
  readonly kind: "partner" | "marketplace" | "cart"
  readonly environment: "live" | "sandbox"
  readonly currency: string
  /** Taken from the buyer. */
  readonly capturedCents: number
  /** Given back to the buyer at the provider. */
  readonly refundedCents: number
  /** Owed back (the sale is reversed in the books), not yet refunded at the provider. */
  readonly refundPendingCents: number
  /** The order the payment bought, if any (a cart has none). */
  readonly orderId: string | null
}

export class PaymentRecords extends Context.Tag("app/LedgerPaymentRecords")<PaymentRecords, {
  /** Every captured payment. */
  readonly captured: Effect.Effect<ReadonlyArray<PaymentRecord>>
}>() {
  /** No payment provider layer (tests of the ledger alone): nothing was captured. */
  static readonly None = Layer.succeed(PaymentRecords, { captured: Effect.succeed([]) })
}
