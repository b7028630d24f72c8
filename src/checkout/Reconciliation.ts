/**
 * What finishes a payment outside the buyer's request: the provider's events, and the
 * reconciliation run (boot and every interval) over sessions stuck in `processing`, refunds owed
 * for a domain sold meanwhile, and paid sessions whose order was reversed.
 *
 * The contract: only a payment the service started acts (`complete` checks it again); every
 * provider call is idempotent by the payment's reference, so a run repeated after a crash only
 * repeats what it already did.
 */
import { Clock, Duration, Effect, Option } from "effect"
import { paymentMismatch } from "../domain/Checkout.js"
import type { CheckoutDeps } from "./Checkout.js"
import type { SessionRow } from "./Repo.js"
import { ABANDONED_ACTION_MS, complete, giveBack, refundUnsold, settleOutcome } from "./Settlement.js"

/**
 * A provider's event (signature verified by the caller). It acts only on a payment the service
 * started: a paid one completes its session (checked by `complete`), a failed or expired one
 * gives the session's reservation back; everything else is logged and ignored.
 */
export const providerEvent = (d: CheckoutDeps, event: unknown) =>
  Effect.gen(function*() {
    const read = d.providers.live.readEvent(event)
    const type = typeof (event as { type?: unknown })?.type === "string" ? (event as { type: string }).type : "?"
    if (Option.isNone(read)) {
      yield* Effect.logInfo("checkout: provider event ignored").pipe(Effect.annotateLogs({ type }))
      return
    }
    const { outcome, payment } = read.value
    const sessionId = yield* d.repo.sessionOfPayment(payment.ref)
    const session = Option.isSome(sessionId) ? yield* d.repo.byId(sessionId.value) : Option.none<SessionRow>()
    const mismatch = Option.isNone(session)
      ? "no session pays with it"
      : session.value.status === "paid" || session.value.status === "refunded"
      ? undefined // a redelivery: `complete` finds it paid
      : paymentMismatch(session.value, payment)
    if (Option.isNone(session) || mismatch !== undefined) {
      yield* Effect.logWarning("checkout: provider event about no payment of ours; ignored").pipe(
        Effect.annotateLogs({ type, payment: payment.ref, reason: mismatch ?? "" })
      )
      return
    }
    if (outcome.status === "succeeded") yield* complete(d, session.value.id, payment.ref, payment)
    // Guarded by the reference: only the session's current payment gives its reservation back.
    if (outcome.status === "declined") yield* giveBack(d, session.value.id, payment.ref, outcome.message)
  })

/** One session stuck in `processing`: asked about at its provider and finished. True when paid. */
const settleStuck = (d: CheckoutDeps, id: string, now: number) =>
  Effect.gen(function*() {
    const found = yield* d.repo.byId(id)
    if (Option.isNone(found)) return false
    const s = found.value
    if (s.payment_ref === null) {
      // Died before the provider heard of it: nothing was charged.
      yield* giveBack(d, s.id, null, "the payment was interrupted")
      return false
    }
    const outcome = yield* d.providerOf(s).retrieve(s.payment_ref)
    if (outcome.status === "requires_action") {
      // The buyer may still confirm or pay; after ABANDONED_ACTION the provider is told to stop
      // the payment and, once it has, the reservation is given back.
      if (s.processing_since !== null && now - s.processing_since.getTime() > ABANDONED_ACTION_MS) {
        const r = yield* settleOutcome(d, s, s.payment_ref, yield* d.providerOf(s).cancel(s.payment_ref))
        return r._tag === "Paid"
      }
      return false
    }
    const r = yield* settleOutcome(d, s, s.payment_ref, outcome)
    return r._tag === "Paid"
  })

/** Sessions stuck in `processing`: ask the provider and finish them (boot and every interval). */
export const reconcile = (d: CheckoutDeps) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const stuck = yield* d.repo.stuck(new Date(now - Duration.toMillis(d.settings.reconcileAfter)))
    let completed = 0
    for (const { id } of stuck) {
      if (yield* settleStuck(d, id, now)) completed++
    }
    let refunded = yield* refundReversed(d)
    for (const { id } of yield* d.repo.unsoldToRefund) {
      const found = yield* d.repo.byId(id)
      if (Option.isSome(found) && (yield* refundUnsold(d, found.value))) refunded++
    }
    return { checked: stuck.length, completed, refunded }
  })

/**
 * Money back: a paid session whose order was refunded or cancelled (partner `POST /refunds`,
 * admin cancel) is refunded at its provider, then marked `refunded`. The provider call is
 * idempotent by the payment's reference, so a crash between it and the mark only repeats it
 * harmlessly; a refusal leaves the session `paid` and the next run tries again.
 */
const refundReversed = (d: CheckoutDeps) =>
  Effect.gen(function*() {
    const due = yield* d.repo.paidButReversed
    let refunded = 0
    for (const { id } of due) {
      const found = yield* d.repo.byId(id)
      if (Option.isNone(found) || found.value.payment_ref === null) continue
      const ok = yield* d.providerOf(found.value).refund(found.value.payment_ref)
      if (!ok) {
        yield* Effect.logWarning("checkout refund refused by the provider; retried next run").pipe(
          Effect.annotateLogs({ session: id })
        )
        continue
      }
      yield* d.repo.markRefunded(id)
      refunded++
    }
    return refunded
  })
