/**
 * The checkout's side of the ledger's `PaymentRecords` port (src/partner/ledger/PaymentRecords.ts):
 * what the payment provider layer captured and gave back, per session, from the sessions this
 * slice owns. Needs only the database, so src/app/Layers.ts provides it below the Partner API.
 *
 * A `paid` session holds its price; a `refunded` one was given back in full once its refund is
 * recorded as sent (the domain sold meanwhile, or the order refunded and the provider refund sent), a `paid` one may have had part of
 * it given back (cart items refused after payment). A `paid` session whose order was
 * refunded or cancelled is owed back: its provider refund is pending (Checkout.refundReversed).
 */
import { Effect, Layer } from "effect"
import { PaymentRecords } from "../partner/ledger/PaymentRecords.js"
import { CheckoutRepo } from "./Repo.js"

export const PaymentRecordsLive = Layer.effect(
  PaymentRecords,
  Effect.map(CheckoutRepo, (repo) => ({
    captured: Effect.map(repo.captured, (rows) =>
      rows.map((s) => ({
        paymentId: s.id,
        kind: s.kind,
        environment: s.environment,
        currency: s.currency,
        capturedCents: s.price_cents,
        // A refused session's refund counts once the provider confirmed it (until then the
        // ledger holds its cash, owed back in `buyer_refunds_due`).
        refundedCents: s.status === "refunded" ? (s.refund_sent ? s.price_cents : 0) : s.partly_refunded_cents,
        refundPendingCents: s.status === "paid" && s.order_reversed ? s.price_cents : 0,
        orderId: s.order_id
      })))
  }))
).pipe(Layer.provide(CheckoutRepo.Live))
