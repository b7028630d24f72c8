/**
 * Hosted checkout rules. Pure: card checks (never storing the number: only brand and last 4
 * leave this module), the sandbox test cards, the return/cancel URL rule, the buyer's return
 * address, and Stripe's webhook signature scheme (`Stripe-Signature: t=…,v1=…`).
 *
 * Session statuses:
 *
 *   open ──pay──▶ processing ──provider succeeded──▶ paid
 *                  │   └──requires_action──▶ requires_action ──confirmed──▶ paid
 *                  └──declined / abandoned──▶ open (the reservation is released)
 *   open ──7 days──▶ expired
 *
 * With a hosted provider (Stripe Checkout) `pay` goes straight to `requires_action` while the buyer
 * is on the provider's page; it ends `paid` (event or poll) or `open` again (cancelled, expired).
 *
 * While a session is `processing` or `requires_action` its domain is reserved: no other session
 * can start paying for it (a unique index holds the reservation).
 */
import { createHmac, timingSafeEqual } from "node:crypto"

export const SESSION_STATUSES = ["open", "processing", "requires_action", "paid", "expired", "refunded"] as const
export type SessionStatus = typeof SESSION_STATUSES[number]

/** Luhn checksum of a digit string. */
export const luhnValid = (digits: string): boolean => {
  if (!/^\d{12,19}$/.test(digits)) return false
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

export const cardBrand = (digits: string): string => {
  if (/^4/.test(digits)) return "visa"
  if (/^(5[1-5]|2[2-7])/.test(digits)) return "mastercard"
  if (/^3[47]/.test(digits)) return "amex"
  if (/^6(011|5)/.test(digits)) return "discover"
  return "card"
}

export interface CardInput {
  readonly number: string
  readonly exp: string
  readonly cvc: string
}

/** A card as typed in the form, checked; the number is kept only in memory for the provider call. */
export interface Card {
  readonly number: string
  readonly expMonth: number
  readonly expYear: number
  readonly cvc: string
  readonly brand: string
  readonly last4: string
}

export type CardCheck = { readonly ok: true; readonly card: Card } | {
  readonly ok: false
  readonly field: "card_number" | "card_exp" | "card_cvc"
  readonly message: string
}

/** Validates the card fields (`exp` as MM/YY or MM/YYYY) against `now`. */
export const checkCard = (input: CardInput, now: Date): CardCheck => {
  const number = input.number.replace(/[\s-]/g, "")
  if (!luhnValid(number)) return { ok: false, field: "card_number", message: "Enter a valid card number." }
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(input.exp)
  if (!m) return { ok: false, field: "card_exp", message: "Enter the expiry date as MM/YY." }
  const month = Number(m[1])
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2])
  if (month < 1 || month > 12) return { ok: false, field: "card_exp", message: "Enter the expiry date as MM/YY." }
  const endOfMonth = Date.UTC(year, month, 1)
  if (endOfMonth <= now.getTime()) return { ok: false, field: "card_exp", message: "This card has expired." }
  if (!/^\d{3,4}$/.test(input.cvc.trim())) {
    return { ok: false, field: "card_cvc", message: "Enter the 3 or 4 digit security code." }
  }
  return {
    ok: true,
    card: {
      number,
      expMonth: month,
      expYear: year,
      cvc: input.cvc.trim(),
      brand: cardBrand(number),
      last4: number.slice(-4)
    }
  }
}

/** The sandbox provider's test cards (Stripe's numbers); any other valid card succeeds. */
export type SandboxOutcome = "succeeded" | "declined" | "requires_action"
export const SANDBOX_CARDS: Readonly<Record<string, SandboxOutcome>> = {
  "4242424242424242": "succeeded",
  "4000000000000002": "declined",
  "4000000000003220": "requires_action"
}
export const sandboxOutcome = (number: string): SandboxOutcome => SANDBOX_CARDS[number] ?? "succeeded"

export const DECLINE_MESSAGE = "Your card was declined. Try another card."

/**
 * `return_url` / `cancel_url`: an absolute https URL (http too outside production), without
 * credentials; never `javascript:`, `data:` or any other scheme. Returns the reason it is refused.
 */
export const redirectUrlProblem = (raw: string, production: boolean): string | undefined => {
  if (raw.length > 2048) return "must be at most 2048 characters"
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return "must be an absolute URL"
  }
  if (u.protocol === "https:") return u.username || u.password ? "must not carry credentials" : undefined
  if (u.protocol === "http:" && !production) return u.username || u.password ? "must not carry credentials" : undefined
  return production ? "must be an https URL" : "must be an https (or, outside production, http) URL"
}

/** Where the buyer goes after paying: `return_url` plus `session_id` and `status`. */
export const returnAddress = (url: string, sessionId: string, status: "paid" | "cancelled"): string => {
  const u = new URL(url)
  u.searchParams.set("session_id", sessionId)
  u.searchParams.set("status", status)
  return u.toString()
}

/** Stripe's webhook signature: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (several v1 allowed). */
export const stripeSignatureHeader = (secret: string, body: string, timestamp: number): string =>
  `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`

export const verifyStripeSignature = (
  header: string | undefined,
  body: string,
  secret: string,
  nowSeconds: number,
  toleranceSeconds = 300
): { readonly ok: true } | { readonly ok: false; readonly reason: string } => {
  if (!header) return { ok: false, reason: "missing Stripe-Signature header" }
  let t: number | undefined
  const v1: Array<string> = []
  for (const part of header.split(",")) {
    const eq = part.indexOf("=")
    if (eq <= 0) continue
    const k = part.slice(0, eq).trim()
    const v = part.slice(eq + 1).trim()
    if (k === "t" && /^\d+$/.test(v)) t = Number(v)
    if (k === "v1" && /^[0-9a-f]{64}$/.test(v)) v1.push(v)
  }
  if (t === undefined || v1.length === 0) return { ok: false, reason: "malformed Stripe-Signature header" }
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return { ok: false, reason: "timestamp outside the tolerance" }
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest()
  const match = v1.some((sig) => {
    const given = Buffer.from(sig, "hex")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  return match ? { ok: true } : { ok: false, reason: "no matching signature" }
}

/**
 * What a payment provider reports about a payment (its signed event, or its answer to a poll).
 * `environment` is the service's environment the money belongs to, as the provider sees it (Stripe:
 * `live` when the event's `livemode` is the mode of our API key).
 */
export interface ReportedPayment {
  readonly provider: string
  /** The provider's id of the payment object (Stripe: the Checkout Session `cs_…` it created for us). */
  readonly ref: string
  /** Our session, as the provider echoes it (client_reference_id / metadata), when it does. */
  readonly sessionId: string | null
  readonly amountCents: number | null
  readonly currency: string | null
  readonly environment: "live" | "sandbox"
  /** The charge to name on the order and to refund (Stripe: the PaymentIntent `pi_…`). */
  readonly paymentId: string | null
}

/** The payment the service itself started for a session (the session row's payment columns). */
export interface StartedPayment {
  readonly id: string
  readonly provider: string | null
  readonly payment_ref: string | null
  readonly price_cents: number
  readonly currency: string
  readonly environment: "live" | "sandbox"
}

/**
 * Why a reported payment is not the one we started for `session` (undefined: it is). A report
 * completes a session only when provider, payment id, session, amount, currency and environment
 * all match: a valid signature proves only who sent the event, not what it is about.
 */
export const paymentMismatch = (session: StartedPayment, reported: ReportedPayment): string | undefined => {
  if (session.payment_ref === null || session.provider === null) return "no payment was started for this session"
  if (reported.provider !== session.provider) {
    return `provider ${reported.provider}, but the session pays through ${session.provider}`
  }
  if (reported.ref !== session.payment_ref) return "not the payment started for this session"
  if (reported.sessionId !== null && reported.sessionId !== session.id) return "the payment names another session"
  if (reported.amountCents !== session.price_cents) {
    return `amount ${String(reported.amountCents)}, expected ${session.price_cents}`
  }
  if (reported.currency === null || reported.currency.toUpperCase() !== session.currency.toUpperCase()) {
    return `currency ${String(reported.currency)}, expected ${session.currency}`
  }
  if (reported.environment !== session.environment) {
    return `environment ${reported.environment}, expected ${session.environment}`
  }
  return undefined
}
