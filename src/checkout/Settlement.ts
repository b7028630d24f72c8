/**
 * Settling a checkout payment: completing a paid session (its one order, or its cart's
 * fulfilment), giving an unpaid attempt's listing hold back, refunding a payment for a domain sold
 * meanwhile or a cart's refused items, and applying a provider's answer about an attempt.
 *
 * The contract (Checkout.ts's header): `complete` may run any number of times, from anywhere, and
 * acts only on the payment the service started for the session; a second call finds the session
 * paid and does nothing.
 */
import { Effect, Option } from "effect"
import { createHash } from "node:crypto"
import { paymentMismatch, type ReportedPayment, returnAddress } from "../domain/Checkout.js"
import type { Hold } from "../domain/Reservation.js"
import { postPaymentReturned, postPaymentTaken } from "../partner/ledger/Books.js"
import type { CheckoutDeps, PayResult } from "./Checkout.js"
import type { PaymentOutcome } from "./PaymentProvider.js"
import type { SessionRow } from "./Repo.js"

/** A confirmation step (3-D Secure) not completed within this long frees the domain again. */
export const ABANDONED_ACTION_MS = 30 * 60_000
/**
 * A paying session holds its listing for its seller (src/domain/Reservation.ts) from the start of
 * the attempt until a little after reconciliation gives an abandoned confirmation up: while the
 * buyer is on the provider's page, no other seller's quote, order or session takes the name
 * (refused before anyone is charged). A declined, cancelled or interrupted attempt gives it back.
 */
export const PAYMENT_HOLD_MS = ABANDONED_ACTION_MS + 5 * 60_000
const paymentHold = (s: SessionRow): Hold | null =>
  s.kind === "cart" || s.partner_id === null || s.processing_since === null
    ? null
    : { holder: s.partner_id, until: new Date(s.processing_since.getTime() + PAYMENT_HOLD_MS) }

export const afterPaid = (s: SessionRow) => (s.return_url ? returnAddress(s.return_url, s.id, "paid") : null)

const unsold = (s: SessionRow) => ({
  sessionId: s.id,
  partnerId: s.partner_id!,
  environment: s.environment,
  currency: s.currency,
  amountCents: s.price_cents
})

interface Completion {
  readonly session: SessionRow | null
  /** The domain was sold meanwhile: the payment is owed back (sent after the transaction). */
  readonly refund: boolean
  /** A cart was paid: its job is woken after the transaction. */
  readonly cartPaid: boolean
}

/**
 * A matching payment of a domain session, under the session's lock: the one order, or, when the
 * listing went meanwhile, the session `refunded` with the payment booked as owed back.
 */
const sell = (d: CheckoutDeps, s: SessionRow, ref: string, reported: ReportedPayment | undefined) =>
  Effect.gen(function*() {
    // A hold taken after this payment was admitted refuses it too: the charge is refunded.
    const listing = yield* d.listings.lockForSale(s.environment, s.domain!, s.partner_id!).pipe(
      Effect.catchTag("ListingHeld", () => Effect.succeed(Option.none()))
    )
    const open = Option.isSome(listing)
      ? yield* d.orders.openOrderOnListing(listing.value.id).pipe(Effect.orDie)
      : Option.none()
    if (
      Option.isNone(listing) || listing.value.id !== s.listing_id || listing.value.status === "sold" ||
      listing.value.status === "withdrawn" || Option.isSome(open)
    ) {
      // The cash came in and is owed back: booked now, returned when the provider confirms.
      yield* d.repo.setStatus(s.id, "refunded", "the domain was sold to someone else; the payment was refunded")
      yield* postPaymentTaken(d.books, unsold(s))
      return { session: { ...s, status: "refunded" as const }, refund: true, cartPaid: false }
    }
    const referral = s.referral_partner_id !== null
    const order = yield* d.orders.recordPaidSale({
      partnerId: referral ? s.referral_partner_id! : s.partner_id!,
      credentialId: s.credential_id ?? (referral ? `referral:${s.referral_link_id}` : "marketplace"),
      environment: s.environment,
      listingId: s.listing_id!,
      domain: s.domain!,
      priceCents: s.price_cents,
      currency: s.currency,
      paymentRef: reported?.paymentId ?? ref,
      paymentModel: referral ? "referral" : "hosted_checkout",
      checkoutSessionId: s.id,
      referralLinkId: s.referral_link_id,
      buyer: {
        email: s.buyer_email ?? "",
        ...(s.buyer_name ? { name: s.buyer_name } : {}),
        ...(s.buyer_country ? { country: s.buyer_country } : {})
      },
      returnUrl: s.return_url,
      cancelUrl: s.cancel_url,
      actor: `checkout:${s.id}`
    }).pipe(Effect.orDie)
    yield* d.repo.markPaid(s.id, order.id)
    return { session: { ...s, status: "paid" as const, order_id: order.id }, refund: false, cartPaid: false }
  })

/** `complete`'s transaction: the session locked, the payment checked, then sold (or its cart paid). */
const completeLocked = (
  d: CheckoutDeps,
  sessionId: string,
  ref: string,
  reported: ReportedPayment | undefined
): Effect.Effect<Completion> =>
  Effect.gen(function*() {
    const found = yield* d.repo.lockById(sessionId)
    if (Option.isNone(found)) return { session: null, refund: false, cartPaid: false }
    const s = found.value
    if (s.status === "paid" || s.status === "refunded") return { session: s, refund: false, cartPaid: false }
    const mismatch = s.payment_ref !== ref
      ? "not the payment started for this session"
      : reported
      ? paymentMismatch(s, reported)
      : undefined
    if (mismatch !== undefined) {
      yield* Effect.logWarning("checkout: a reported payment matches no payment of ours; ignored").pipe(
        Effect.annotateLogs({ session: s.id, payment: reported?.ref ?? ref, reason: mismatch })
      )
      return { session: s, refund: false, cartPaid: false }
    }
    if (s.kind === "cart") {
      yield* d.fulfilment.paid({ cartId: s.cart_id!, sessionId: s.id })
      yield* d.repo.markPaid(s.id, null)
      return { session: { ...s, status: "paid" as const }, refund: false, cartPaid: true }
    }
    return yield* sell(d, s, ref, reported)
  })

/**
 * The session is paid at the provider: create its one order (or fulfil its cart) in one
 * transaction. Safe to call any number of times, from anywhere. `ref` must be the payment the
 * service started for the session; `reported` (a provider's event or poll answer) must match it.
 */
export const complete = (d: CheckoutDeps, sessionId: string, ref: string, reported?: ReportedPayment) =>
  Effect.gen(function*() {
    const result = yield* d.repo.transaction(completeLocked(d, sessionId, ref, reported))
    // The cart's job was enqueued in the transaction, when no worker could see it: wake them now.
    if (result.cartPaid && result.session) {
      yield* d.fulfilment.committed({ cartId: result.session.cart_id!, sessionId: result.session.id })
    }
    if (result.refund && result.session) yield* refundUnsold(d, result.session)
    return result.session
  })

/** The listing hold a session's payment took, given back (a no-op once anything replaced it). */
export const releaseHold = (d: CheckoutDeps, s: SessionRow) => {
  const held = paymentHold(s)
  return held === null || s.listing_id === null ? Effect.void : d.listings.release(s.listing_id, held)
}

/**
 * An attempt that ended unpaid (declined, cancelled, abandoned; `ref` null: interrupted before
 * the provider heard of it) reopens its session and gives its listing hold back, in one
 * transaction; only while `ref` is still the session's current attempt.
 */
export const giveBack = (d: CheckoutDeps, sessionId: string, ref: string | null, message: string) =>
  d.repo.transaction(Effect.gen(function*() {
    const found = yield* d.repo.lockById(sessionId)
    if (Option.isNone(found)) return
    const s = found.value
    if (s.payment_ref !== ref || (s.status !== "processing" && s.status !== "requires_action")) return
    yield* ref === null ? d.repo.releaseInterrupted(s.id) : d.repo.releaseAttempt(s.id, ref, message)
    yield* releaseHold(d, s)
  }))

/**
 * Sends a refused session's refund (idempotent at the provider by the payment's reference) and,
 * once the provider took it, records it sent with its ledger posting in one transaction. A
 * refusal leaves it for the next reconciliation run. True when the refund is recorded.
 */
export const refundUnsold = (d: CheckoutDeps, s: SessionRow) =>
  Effect.gen(function*() {
    if (s.payment_ref === null) return false
    const ok = yield* d.providerOf(s).refund(s.payment_ref)
    if (!ok) {
      yield* Effect.logWarning("checkout: refund of a payment for a domain sold meanwhile refused; retried next run")
        .pipe(Effect.annotateLogs({ session: s.id }))
      return false
    }
    return yield* d.repo.transaction(Effect.gen(function*() {
      if (!(yield* d.repo.markRefundSent(s.id))) return false
      yield* postPaymentReturned(d.books, unsold(s))
      return true
    }))
  })

/** Applies a provider's answer about the current attempt of a session. */
export const settleOutcome = (
  d: CheckoutDeps,
  s: SessionRow,
  ref: string,
  outcome: PaymentOutcome
): Effect.Effect<PayResult> =>
  Effect.gen(function*() {
    switch (outcome.status) {
      case "succeeded": {
        const paid = yield* complete(d, s.id, ref, outcome.payment)
        if (paid?.status === "refunded") {
          return {
            _tag: "Unavailable",
            message: `${s.domain} is no longer available. Your payment was refunded.`
          } as const
        }
        if (paid?.status !== "paid") {
          return {
            _tag: "Pending",
            message: "We could not confirm this payment yet. This page will show the result."
          } as const
        }
        return { _tag: "Paid", session: paid, redirect: afterPaid(s) } as const
      }
      case "declined":
        yield* giveBack(d, s.id, ref, outcome.message)
        return { _tag: "Declined", message: outcome.message } as const
      case "requires_action":
        yield* d.repo.markRequiresAction(s.id, ref)
        return { _tag: "RequiresAction", redirectUrl: outcome.redirectUrl } as const
      case "unknown":
        return {
          _tag: "Pending",
          message:
            "We are waiting for your bank's answer. This page will show the result; you will not be charged twice."
        } as const
    }
  })

/**
 * Gives `amountCents` of a cart's payment back: all of it (the session becomes `refunded`), or
 * part of it under `key` (the refused items; the provider's Idempotency-Key and our record of
 * it, so a retry after a crash refunds and counts it once).
 */
export const refundCart = (
  d: CheckoutDeps,
  input: { readonly cartId: string; readonly amountCents: number; readonly key: string }
) =>
  Effect.gen(function*() {
    const found = yield* d.repo.byCart(input.cartId)
    if (Option.isNone(found) || found.value.payment_ref === null) return false
    const s = found.value
    const whole = input.amountCents === s.price_cents
    // The whole payment went back already (a retry after a crash): nothing more to refund.
    if (s.status === "refunded") return whole
    if (s.status !== "paid") return false
    const key = createHash("sha256").update(input.key).digest("hex").slice(0, 32)
    const refunded = yield* d.providerOf(s).refund(
      s.payment_ref!,
      whole ? undefined : { amountCents: input.amountCents, key }
    )
    if (!refunded) return false
    // All of it back: the session is `refunded`, like any session whose payment was given back.
    if (whole) yield* d.repo.markRefunded(s.id)
    else yield* d.repo.recordPartialRefund(s.id, key, input.amountCents)
    return true
  })
