/**
 * Paying a checkout session: the buyer's form (card flow) or the provider's hosted page, the
 * return from a confirmation step, and the buyer's cancel.
 *
 * The contract (Checkout.ts's header): `pay` reserves first (the session and its listing locked
 * in one transaction, the listing held for the session's seller), stores the provider's reference
 * before any charge, and only then charges; a refusal before the charge leaves nothing charged.
 */
import { Clock, Effect, Option } from "effect"
import { type Card, checkCard } from "../domain/Checkout.js"
import type { CartItem } from "./Cart.js"
import type { BuyerForm, CheckoutDeps, PayResult } from "./Checkout.js"
import type { PaymentStart } from "./PaymentProvider.js"
import type { SessionRow } from "./Repo.js"
import { afterPaid, PAYMENT_HOLD_MS, releaseHold, settleOutcome } from "./Settlement.js"

/** What the buyer reads while another seller's quote holds the domain. */
export const reservedMessage = (until: Date | string) =>
  `This domain is reserved until ${
    typeof until === "string" ? until : until.toISOString()
  } for another buyer. You have not been charged; try again after that time.`

/** What the buyer pays for, one line each: the domain, or each item of a cart. */
const linesOf = (s: SessionRow): ReadonlyArray<{ readonly name: string; readonly amountCents: number }> => {
  const items = typeof s.items === "string" ? (JSON.parse(s.items) as unknown) : s.items
  const cart = Array.isArray(items) ? (items as ReadonlyArray<CartItem>) : []
  const lines = cart.map((i) => ({
    name: `${i.op === "renew" ? "Renewal" : "Restore"} of ${i.domain}, ${i.years} ${i.years === 1 ? "year" : "years"}`,
    amountCents: i.priceCents
  }))
  return s.domain !== null || lines.reduce((sum, l) => sum + l.amountCents, 0) !== s.price_cents
    ? [{ name: s.domain ? `Domain ${s.domain}` : `Renewals (${s.id})`, amountCents: s.price_cents }]
    : lines
}

/** Whether the session's page takes the card itself (sandbox); a hosted provider takes it on its own page. */
export const takesCard = (d: CheckoutDeps, s: SessionRow) => d.providerOf(s).flow === "card"

/**
 * Step 1 of `pay`: the session and its listing, locked, in one transaction; the listing held for
 * the session's seller and the attempt started, or why the session cannot pay now.
 */
const reserve = (d: CheckoutDeps, sessionId: string, form: BuyerForm, card: Card | null, now: number) =>
  d.repo.transaction(
    Effect.gen(function*() {
      const found = yield* d.repo.lockById(sessionId)
      if (Option.isNone(found)) return { _tag: "Gone" } as const
      const s = found.value
      if (s.status === "paid") return { _tag: "AlreadyPaid", session: s } as const
      if (s.status === "processing" || s.status === "requires_action") return { _tag: "InProgress" } as const
      if (s.status !== "open" || s.expires_at.getTime() <= now) return { _tag: "Gone" } as const
      if (s.kind !== "cart") {
        // The reservation rule before any charge: a session opened before another seller's
        // quote is refused here, while its hold lasts.
        const claimed = yield* Effect.either(d.listings.lockForSale(s.environment, s.domain!, s.partner_id!))
        if (claimed._tag === "Left") return { _tag: "Held", until: claimed.left.heldUntil } as const
        const listing = claimed.right
        if (
          Option.isNone(listing) || listing.value.id !== s.listing_id || listing.value.status !== "active" ||
          listing.value.locked
        ) {
          return { _tag: "Unavailable" } as const
        }
        const open = yield* d.orders.openOrderOnListing(listing.value.id).pipe(Effect.orDie)
        if (Option.isSome(open)) return { _tag: "Unavailable" } as const
        if (yield* d.repo.payingOnListing(listing.value.id, s.id)) return { _tag: "Unavailable" } as const
        // Held for the session's seller while the buyer pays (claimed above, so never refused).
        yield* d.listings.hold(listing.value, s.partner_id!, new Date(now + PAYMENT_HOLD_MS)).pipe(Effect.orDie)
      }
      const started = yield* d.repo.startPayment(s.id, {
        provider: d.providerOf(s).name,
        email: form.email,
        name: form.name,
        country: form.country,
        brand: card?.brand ?? null,
        last4: card?.last4 ?? null,
        since: new Date(now)
      })
      return { _tag: "Reserved", session: started } as const
    })
  )

type Reservation = Effect.Effect.Success<ReturnType<typeof reserve>>

/** The buyer's answer when the session could not be reserved. */
const notReserved = (r: Exclude<Reservation, { readonly _tag: "Reserved" }>): PayResult => {
  switch (r._tag) {
    case "Gone":
      return {
        _tag: "Unavailable",
        message: "This checkout link has expired. Ask the seller for a new one."
      } as const
    case "AlreadyPaid":
      return { _tag: "Paid", session: r.session, redirect: afterPaid(r.session) } as const
    case "InProgress":
      return {
        _tag: "Pending",
        message: "A payment for this checkout is already in progress. This page will show the result."
      } as const
    case "Unavailable":
      return {
        _tag: "Unavailable",
        message: "This domain is no longer available: someone else is buying it. You have not been charged."
      } as const
    case "Held":
      return { _tag: "Unavailable", message: reservedMessage(r.until) } as const
  }
}

/**
 * Steps 2 and 3 of `pay`, for a reserved session: the provider's reference stored before any
 * charge (reconciliation can ask about it), then the charge, here (card) or on the provider's
 * page, which the buyer is sent to (hosted).
 */
const charge = (d: CheckoutDeps, s: SessionRow, form: BuyerForm, card: Card | null): Effect.Effect<PayResult> =>
  Effect.gen(function*() {
    const provider = d.providerOf(s)
    const returnUrl = `${d.baseUrl}/checkout/return?pt=${encodeURIComponent(d.tokenOf(s))}`
    const start: PaymentStart = {
      sessionId: s.id,
      attempt: s.attempt,
      amountCents: s.price_cents,
      currency: s.currency,
      email: form.email,
      description: s.domain ? `Domain ${s.domain}` : `Renewals (${s.id})`,
      lines: linesOf(s),
      card,
      returnUrl,
      cancelUrl: `${returnUrl}&cancelled=1`
    }
    const created = yield* Effect.either(provider.create(start))
    if (created._tag === "Left") {
      yield* Effect.logWarning("checkout: the payment provider refused or did not answer").pipe(
        Effect.annotateLogs({ session: s.id, reason: created.left.message })
      )
      yield* d.repo.transaction(Effect.zipRight(
        d.repo.setStatus(s.id, "open", "the payment provider is unavailable"),
        releaseHold(d, s)
      ))
      return {
        _tag: "Declined",
        message: "The payment service is unavailable right now. You have not been charged; try again in a minute."
      } as const
    }
    const { redirectUrl, ref } = created.right
    yield* d.repo.setPaymentRef(s.id, s.attempt, ref)
    if (provider.flow === "hosted") {
      yield* d.repo.markRequiresAction(s.id, ref)
      return { _tag: "RequiresAction", redirectUrl } as const
    }
    const outcome = yield* provider.confirm(ref, start, returnUrl)
    return yield* settleOutcome(d, { ...s, payment_ref: ref }, ref, outcome)
  })

/**
 * Pays a session: with the `card` flow, charges the form's card; with a `hosted` provider, makes
 * the provider's payment page and answers `RequiresAction` with its URL (the buyer pays there).
 */
export const pay = (d: CheckoutDeps, sessionId: string, form: BuyerForm): Effect.Effect<PayResult> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const before = yield* d.repo.byId(sessionId)
    const hosted = Option.isSome(before) && !takesCard(d, before.value)
    let card: Card | null = null
    if (!hosted) {
      const checked = checkCard({ number: form.cardNumber, exp: form.cardExp, cvc: form.cardCvc }, new Date(now))
      if (!checked.ok) return { _tag: "Invalid", field: checked.field, message: checked.message } as const
      card = checked.card
    }
    const reserved = yield* reserve(d, sessionId, form, card, now)
    if (reserved._tag !== "Reserved") return notReserved(reserved)
    return yield* charge(d, reserved.session, form, card)
  })

/** After a confirmation step (sandbox: our own page; stripe: the bank's redirect back). */
export const afterAction = (d: CheckoutDeps, sessionId: string, sandboxConfirmed: boolean): Effect.Effect<PayResult> =>
  Effect.gen(function*() {
    const found = yield* d.repo.byId(sessionId)
    if (Option.isNone(found)) return { _tag: "Unavailable", message: "Unknown checkout." } as const
    const s = found.value
    if (s.status === "paid") return { _tag: "Paid", session: s, redirect: afterPaid(s) } as const
    if (s.payment_ref === null || (s.status !== "requires_action" && s.status !== "processing")) {
      return { _tag: "Declined", message: s.last_error ?? "There is no payment to confirm. Start again." } as const
    }
    const provider = d.providerOf(s)
    const outcome = sandboxConfirmed
      ? yield* provider.completeAction(s.payment_ref)
      : yield* provider.retrieve(s.payment_ref)
    return yield* settleOutcome(d, s, s.payment_ref, outcome)
  })

/** The buyer gave up on the provider's page (its cancel link): stop that payment, give the domain back. */
export const cancelAttempt = (d: CheckoutDeps, sessionId: string): Effect.Effect<PayResult> =>
  Effect.gen(function*() {
    const found = yield* d.repo.byId(sessionId)
    if (Option.isNone(found)) return { _tag: "Unavailable", message: "Unknown checkout." } as const
    const s = found.value
    if (s.payment_ref === null || (s.status !== "requires_action" && s.status !== "processing")) {
      return yield* afterAction(d, s.id, false)
    }
    const outcome = yield* d.providerOf(s).cancel(s.payment_ref)
    return yield* settleOutcome(
      d,
      s,
      s.payment_ref,
      outcome.status === "declined"
        ? { status: "declined", message: "You cancelled the payment. Nothing was charged." }
        : outcome
    )
  })
