/**
 * The `stripe` payment provider: Stripe Checkout Sessions over REST (`STRIPE_API_BASE`, bearer
 * `STRIPE_API_KEY`, form-encoded), so card data never reaches the service (PCI SAQ A).
 *
 * - `create`: `POST /v1/checkout/sessions` (`mode=payment`, `line_items` with `price_data`,
 *   `success_url`/`cancel_url` back to our page, `client_reference_id` and `metadata[session_id]`
 *   = our `cs_…`), with an Idempotency-Key per session and attempt, so a retried call makes no
 *   second Stripe session. The answer is the Stripe session's id (our payment reference) and its
 *   hosted `url`.
 * - `retrieve`: `GET /v1/checkout/sessions/{id}` (the buyer's return, the reconciliation poll for
 *   a lost webhook); `cancel`: `POST …/{id}/expire`; `refund`: `POST /v1/refunds` with the
 *   session's PaymentIntent.
 * - `readEvent`: `checkout.session.completed`, `…async_payment_succeeded`, `…async_payment_failed`
 *   and `…expired`; every other event type is not ours to act on.
 *
 * Contract: a paid session is reported with what Stripe says was paid (amount, currency, mode,
 * the session it names) and the caller checks it against what it started; this module decides
 * nothing about our sessions.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Duration, Effect, Option, Redacted, Schema } from "effect"
import type { ReportedPayment } from "../domain/Checkout.js"
import { type PaymentOutcome, type PaymentProviderShape, PaymentUnavailable } from "./PaymentProviderShape.js"

/** A Checkout Session as Stripe answers it (https://docs.stripe.com/api/checkout/sessions/object), the fields we read. */
const StripeSession = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("checkout.session"),
  status: Schema.optional(Schema.NullOr(Schema.String)),
  payment_status: Schema.optional(Schema.NullOr(Schema.String)),
  amount_total: Schema.optional(Schema.NullOr(Schema.Number)),
  currency: Schema.optional(Schema.NullOr(Schema.String)),
  client_reference_id: Schema.optional(Schema.NullOr(Schema.String)),
  metadata: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  payment_intent: Schema.optional(
    Schema.NullOr(
      Schema.Union(Schema.String, Schema.Struct({ id: Schema.String, status: Schema.optional(Schema.String) }))
    )
  ),
  livemode: Schema.optional(Schema.Boolean),
  url: Schema.optional(Schema.NullOr(Schema.String))
})
type StripeSession = typeof StripeSession.Type

const StripeEvent = Schema.Struct({
  type: Schema.String,
  data: Schema.Struct({ object: Schema.Unknown })
})

/** The event types that move a payment of ours; what each one means is read from the session it carries. */
const SESSION_EVENTS = new Set([
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "checkout.session.expired"
])

const decodeSession = Schema.decodeUnknownOption(StripeSession)
const decodeEvent = Schema.decodeUnknownOption(StripeEvent)

export const NOT_COMPLETED = "The payment was not completed in time. Nothing was charged."
export const PAYMENT_FAILED = "The payment failed. Nothing was charged; try again."

/** Stripe's PaymentIntent id of a session (a string, or the object when expanded). */
const intentOf = (s: StripeSession) =>
  typeof s.payment_intent === "string" ? s.payment_intent : s.payment_intent?.id ?? null

export const stripeCheckout = (options: { readonly apiBase: string; readonly apiKey: Redacted.Redacted }) =>
  Effect.map(HttpClient.HttpClient, (http): PaymentProviderShape => {
    const base = options.apiBase.replace(/\/+$/, "")
    // Events and sessions of the other mode (test vs live) than our key are not payments of ours.
    const keyLive = /^(sk|rk)_live_/.test(Redacted.value(options.apiKey))
    const call = (request: HttpClientRequest.HttpClientRequest) =>
      http.execute(HttpClientRequest.bearerToken(request, Redacted.value(options.apiKey))).pipe(
        Effect.flatMap((response) =>
          Effect.map(
            response.json.pipe(Effect.orElseSucceed(() => ({}) as unknown)),
            (body: any) => ({ status: response.status, body })
          )
        ),
        Effect.timeout(Duration.seconds(20)),
        Effect.scoped
      )
    const post = (path: string, key: string, form: Record<string, string>) =>
      call(
        HttpClientRequest.post(`${base}${path}`).pipe(
          HttpClientRequest.setHeader("idempotency-key", key),
          HttpClientRequest.bodyUrlParams(form)
        )
      )
    const ok = (status: number) => status >= 200 && status < 300
    const unknown = (reason: string): PaymentOutcome => ({ status: "unknown", reason })

    const reported = (s: StripeSession): ReportedPayment => ({
      provider: "stripe",
      ref: s.id,
      sessionId: s.client_reference_id ??
        (typeof s.metadata?.session_id === "string" ? s.metadata.session_id : null),
      amountCents: s.amount_total ?? null,
      currency: s.currency ?? null,
      environment: s.livemode === keyLive ? "live" : "sandbox",
      paymentId: intentOf(s)
    })

    /** What a Stripe session's state means for our payment. */
    const outcomeOf = (s: StripeSession): PaymentOutcome => {
      if (s.status === "complete" && s.payment_status === "paid") return { status: "succeeded", payment: reported(s) }
      if (s.status === "open") return { status: "requires_action", redirectUrl: s.url ?? null }
      if (s.status === "expired") return { status: "declined", message: NOT_COMPLETED }
      // Complete but unpaid: a delayed payment method still clearing, unless its intent failed.
      const intent = typeof s.payment_intent === "object" ? s.payment_intent?.status : undefined
      if (s.status === "complete" && (intent === "requires_payment_method" || intent === "canceled")) {
        return { status: "declined", message: PAYMENT_FAILED }
      }
      return unknown(`stripe session ${String(s.status)}, payment ${String(s.payment_status)}`)
    }

    const retrieve = (ref: string) =>
      call(
        HttpClientRequest.get(`${base}/v1/checkout/sessions/${encodeURIComponent(ref)}`).pipe(
          HttpClientRequest.setUrlParam("expand[]", "payment_intent")
        )
      ).pipe(
        Effect.map((r) => {
          const s = ok(r.status) ? decodeSession(r.body) : Option.none()
          return Option.isSome(s) ? outcomeOf(s.value) : unknown(`stripe ${r.status}`)
        }),
        Effect.catchAll((e) => Effect.succeed(unknown(`stripe unreachable: ${e._tag}`)))
      )

    return {
      name: "stripe",
      flow: "hosted",
      create: (p) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const form: Record<string, string> = {
            mode: "payment",
            success_url: p.returnUrl,
            cancel_url: p.cancelUrl,
            client_reference_id: p.sessionId,
            "metadata[session_id]": p.sessionId,
            "metadata[attempt]": String(p.attempt),
            "payment_intent_data[metadata][session_id]": p.sessionId,
            "payment_intent_data[description]": p.description,
            // Stripe's minimum; the reconciliation expires an abandoned one itself after 30 minutes.
            expires_at: String(Math.floor(now / 1000) + 31 * 60)
          }
          if (p.email !== "") form.customer_email = p.email
          p.lines.forEach((line, i) => {
            form[`line_items[${i}][quantity]`] = "1"
            form[`line_items[${i}][price_data][currency]`] = p.currency.toLowerCase()
            form[`line_items[${i}][price_data][unit_amount]`] = String(line.amountCents)
            form[`line_items[${i}][price_data][product_data][name]`] = line.name
          })
          return post(`/v1/checkout/sessions`, `${p.sessionId}:${p.attempt}:checkout-session`, form).pipe(
            Effect.mapError((e) => new PaymentUnavailable(`stripe unreachable: ${e._tag}`)),
            Effect.flatMap((r) => {
              const s = ok(r.status) ? decodeSession(r.body) : Option.none()
              if (Option.isNone(s) || typeof s.value.url !== "string") {
                return Effect.fail(
                  new PaymentUnavailable(
                    `stripe ${r.status}: ${String(r.body?.error?.message ?? "refused").slice(0, 200)}`
                  )
                )
              }
              if (s.value.amount_total !== p.amountCents) {
                return Effect.fail(new PaymentUnavailable(`stripe session amount ${String(s.value.amount_total)}`))
              }
              return Effect.succeed({ ref: s.value.id, redirectUrl: s.value.url })
            })
          )
        }),
      confirm: (ref) => retrieve(ref),
      retrieve,
      completeAction: (ref) => retrieve(ref),
      cancel: (ref) =>
        post(`/v1/checkout/sessions/${encodeURIComponent(ref)}/expire`, `${ref}:expire`, {}).pipe(
          Effect.flatMap((r) => {
            const s = ok(r.status) ? decodeSession(r.body) : Option.none()
            // Refused: it was completed (or expired) meanwhile; what it is now decides.
            return Option.isSome(s) ? Effect.succeed(outcomeOf(s.value)) : retrieve(ref)
          }),
          Effect.catchAll((e) => Effect.succeed(unknown(`stripe unreachable: ${e._tag}`)))
        ),
      refund: (ref, part) =>
        Effect.gen(function*() {
          let intent: string | null = ref.startsWith("pi_") ? ref : null
          if (intent === null) {
            const r = yield* call(HttpClientRequest.get(`${base}/v1/checkout/sessions/${encodeURIComponent(ref)}`))
            const s = ok(r.status) ? decodeSession(r.body) : Option.none()
            intent = Option.isSome(s) ? intentOf(s.value) : null
          }
          if (intent === null) return false
          const r = part === undefined
            ? yield* post(`/v1/refunds`, `refund:${ref}`, { payment_intent: intent })
            : yield* post(`/v1/refunds`, `refund:${ref}:${part.key}`, {
              payment_intent: intent,
              amount: String(part.amountCents)
            })
          // Refunded already (by an operator in Stripe's dashboard, or a lost answer with another key).
          return ok(r.status) || r.body?.error?.code === "charge_already_refunded"
        }).pipe(Effect.catchAll(() => Effect.succeed(false))),
      readEvent: (event) =>
        Option.flatMap(decodeEvent(event), (e) =>
          SESSION_EVENTS.has(e.type)
            ? Option.map(decodeSession(e.data.object), (s) => ({
              type: e.type,
              payment: reported(s),
              outcome: e.type === "checkout.session.async_payment_failed"
                ? { status: "declined", message: PAYMENT_FAILED } as const
                : outcomeOf(s)
            }))
            : Option.none())
    }
  })
