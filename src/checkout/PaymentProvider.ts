/**
 * Where the buyer's money comes from: a PaymentProvider layer. Sessions of sandbox credentials
 * always pay through `sandbox`; live sessions through PAYMENT_PROVIDER (`sandbox` or `stripe`).
 *
 * - `sandbox`: no network. Stripe's test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002
 *   is declined, 4000 0000 0000 3220 needs a confirmation step (our own page stands in for the
 *   bank's). The outcome is part of the payment reference, so it survives a restart.
 * - `stripe`: PaymentIntents over Stripe's REST API (`STRIPE_API_BASE`, bearer `STRIPE_API_KEY`),
 *   form-encoded, every write with an Idempotency-Key derived from session and attempt, so a
 *   retried call never charges twice. `create` makes the intent (no charge) and the service stores
 *   its id before `confirm` charges: whatever happens after, reconciliation can ask Stripe.
 *
 * Contract: the card is passed through to `confirm` only; providers never log it and nothing here
 * stores it. `unknown` means "no answer": the session stays `processing` and reconciliation
 * (src/checkout/Worker.ts) asks `retrieve` later.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { type Card, DECLINE_MESSAGE, sandboxOutcome } from "../domain/Checkout.js"
import { LedgerConfig } from "../partner/ledger/Settings.js"
import { CheckoutConfig } from "./Settings.js"

export type PaymentOutcome =
  | { readonly status: "succeeded" }
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
  readonly card: Card
}

export interface PaymentProviderShape {
  readonly name: "sandbox" | "stripe"
  /** Creates the payment without charging; the reference to store before `confirm`. */
  readonly create: (p: PaymentStart) => Effect.Effect<string, PaymentUnavailable>
  /** Charges the card. `returnUrl`: where a confirmation step (3-D Secure) sends the buyer back. */
  readonly confirm: (ref: string, p: PaymentStart, returnUrl: string) => Effect.Effect<PaymentOutcome>
  /** What the provider knows about the payment now (return from a confirmation step, reconciliation). */
  readonly retrieve: (ref: string) => Effect.Effect<PaymentOutcome>
  /** The buyer completed the confirmation step on our own page (sandbox only). */
  readonly completeAction: (ref: string) => Effect.Effect<PaymentOutcome>
  /** Gives the money back (the domain was sold meanwhile). True when refunded. */
  readonly refund: (ref: string) => Effect.Effect<boolean>
}

export class PaymentUnavailable extends Error {
  readonly _tag = "PaymentUnavailable"
}

/** The providers: `sandbox` always, `live` per PAYMENT_PROVIDER. */
export class PaymentProviders extends Context.Tag("app/PaymentProviders")<PaymentProviders, {
  readonly sandbox: PaymentProviderShape
  readonly live: PaymentProviderShape
  readonly byName: (name: string) => PaymentProviderShape
}>() {}

const SANDBOX_CODE = { succeeded: "ok", declined: "dc", requires_action: "3ds" } as const

export const SandboxPayments: PaymentProviderShape = {
  name: "sandbox",
  create: (p) =>
    Effect.succeed(
      `pi_sbx_${p.sessionId.replace(/^cs_/, "")}_${p.attempt}_${SANDBOX_CODE[sandboxOutcome(p.card.number)]}`
    ),
  confirm: (ref) => SandboxPayments.retrieve(ref),
  retrieve: (ref) =>
    Effect.succeed(
      ref.endsWith("_ok") || ref.endsWith("_3ds_done")
        ? { status: "succeeded" }
        : ref.endsWith("_dc")
        ? { status: "declined", message: DECLINE_MESSAGE }
        : ref.endsWith("_3ds")
        ? { status: "requires_action", redirectUrl: null }
        : { status: "unknown", reason: "not a sandbox payment" }
    ),
  completeAction: (ref) =>
    Effect.succeed(
      ref.endsWith("_3ds") ? { status: "succeeded" } : { status: "unknown", reason: "nothing to confirm" }
    ),
  refund: () => Effect.succeed(true)
}

const outcomeOfIntent = (pi: any): PaymentOutcome => {
  switch (pi?.status) {
    case "succeeded":
      return { status: "succeeded" }
    case "requires_action":
      return {
        status: "requires_action",
        redirectUrl: typeof pi?.next_action?.redirect_to_url?.url === "string"
          ? pi.next_action.redirect_to_url.url
          : null
      }
    case "requires_payment_method":
    case "canceled":
      return { status: "declined", message: String(pi?.last_payment_error?.message ?? DECLINE_MESSAGE).slice(0, 300) }
    default:
      return { status: "unknown", reason: `payment intent ${String(pi?.status ?? "unreadable")}` }
  }
}

export const stripePayments = (options: { readonly apiBase: string; readonly apiKey: Redacted.Redacted }) =>
  Effect.map(HttpClient.HttpClient, (http): PaymentProviderShape => {
    const base = options.apiBase.replace(/\/+$/, "")
    const call = (request: HttpClientRequest.HttpClientRequest) =>
      http.execute(HttpClientRequest.bearerToken(request, Redacted.value(options.apiKey))).pipe(
        Effect.flatMap((response) =>
          Effect.map(
            response.json.pipe(Effect.orElseSucceed(() => ({}) as any)),
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
    const unknown = (e: { readonly _tag: string }): PaymentOutcome => ({
      status: "unknown",
      reason: `stripe unreachable: ${e._tag}`
    })
    const self: PaymentProviderShape = {
      name: "stripe",
      create: (p) =>
        post(`/v1/payment_intents`, `${p.sessionId}:${p.attempt}:create`, {
          amount: String(p.amountCents),
          currency: p.currency.toLowerCase(),
          receipt_email: p.email,
          description: p.description,
          "payment_method_types[]": "card",
          "metadata[session_id]": p.sessionId,
          "metadata[attempt]": String(p.attempt)
        }).pipe(
          Effect.flatMap((r) =>
            r.status >= 200 && r.status < 300 && typeof r.body?.id === "string"
              ? Effect.succeed(r.body.id as string)
              : Effect.fail(
                new PaymentUnavailable(
                  `stripe ${r.status}: ${String(r.body?.error?.message ?? "refused").slice(0, 200)}`
                )
              )
          ),
          Effect.catchIf(
            (e): e is Exclude<typeof e, PaymentUnavailable> => !(e instanceof PaymentUnavailable),
            (e) => Effect.fail(new PaymentUnavailable(`stripe unreachable: ${e._tag}`))
          )
        ),
      confirm: (ref, p, returnUrl) =>
        post(`/v1/payment_intents/${encodeURIComponent(ref)}/confirm`, `${p.sessionId}:${p.attempt}:confirm`, {
          "payment_method_data[type]": "card",
          "payment_method_data[card][number]": p.card.number,
          "payment_method_data[card][exp_month]": String(p.card.expMonth),
          "payment_method_data[card][exp_year]": String(p.card.expYear),
          "payment_method_data[card][cvc]": p.card.cvc,
          return_url: returnUrl
        }).pipe(
          Effect.map((r): PaymentOutcome => {
            if (r.status >= 200 && r.status < 300) return outcomeOfIntent(r.body)
            // A decline is a 402 card_error carrying the intent.
            if (r.status === 402 || r.body?.error?.type === "card_error") {
              return { status: "declined", message: String(r.body?.error?.message ?? DECLINE_MESSAGE).slice(0, 300) }
            }
            return { status: "unknown", reason: `stripe ${r.status}` }
          }),
          Effect.catchAll((e) => Effect.succeed(unknown(e)))
        ),
      retrieve: (ref) =>
        call(HttpClientRequest.get(`${base}/v1/payment_intents/${encodeURIComponent(ref)}`)).pipe(
          Effect.map((r) => (r.status >= 200 && r.status < 300
            ? outcomeOfIntent(r.body)
            : { status: "unknown", reason: `stripe ${r.status}` } as const)
          ),
          Effect.catchAll((e) => Effect.succeed(unknown(e)))
        ),
      completeAction: (ref) => self.retrieve(ref),
      refund: (ref) =>
        post(`/v1/refunds`, `refund:${ref}`, { payment_intent: ref }).pipe(
          Effect.map((r) => r.status >= 200 && r.status < 300),
          Effect.catchAll(() => Effect.succeed(false))
        )
    }
    return self
  })

export const PaymentProvidersLive = Layer.effect(
  PaymentProviders,
  Effect.gen(function*() {
    const checkoutSettings = yield* CheckoutConfig
    const ledgerSettings = yield* LedgerConfig
    let live = SandboxPayments
    if (checkoutSettings.paymentProvider === "stripe") {
      if (Option.isNone(ledgerSettings.stripeApiKey)) {
        return yield* Effect.dieMessage("PAYMENT_PROVIDER=stripe needs STRIPE_API_KEY")
      }
      live = yield* stripePayments({ apiBase: ledgerSettings.stripeApiBase, apiKey: ledgerSettings.stripeApiKey.value })
    }
    return {
      sandbox: SandboxPayments,
      live,
      byName: (name: string) => (name === "stripe" ? live : SandboxPayments)
    }
  })
)
