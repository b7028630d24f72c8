/**
 * Where payouts go: a PayoutProvider layer chosen by PAYOUT_PROVIDER.
 *
 * - `sandbox`: pays at once; nothing leaves the service (method `sandbox`).
 * - `stripe`: a Stripe Connect transfer to the partner's connected account
 *   (`POST {STRIPE_API_BASE}/v1/transfers`, form-encoded, `Idempotency-Key` = the payout id), so a
 *   retried payout is never paid twice: Stripe answers a replayed key with the first transfer.
 *
 * Contract: `pay` answers `paid` (with the provider's reference), `failed` (the provider refused:
 * the amount goes back to payable) or `pending` (no answer: retried with the same key next run).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { LedgerConfig } from "./Settings.js"

export interface PayoutRequest {
  readonly payoutId: string
  readonly partnerId: string
  readonly amountCents: number
  readonly currency: string
  /** The partner's account at the provider (Stripe: `acct_…`), if any. */
  readonly destination: string | null
}

export type PayoutOutcome =
  | { readonly status: "paid"; readonly ref: string }
  | { readonly status: "failed"; readonly reason: string }
  | { readonly status: "pending"; readonly reason: string }

export interface PayoutProviderShape {
  readonly method: string
  readonly pay: (r: PayoutRequest) => Effect.Effect<PayoutOutcome>
}

export class PayoutProvider extends Context.Tag("app/PayoutProvider")<PayoutProvider, PayoutProviderShape>() {}

export const SandboxPayouts: PayoutProviderShape = {
  method: "sandbox",
  pay: (r) => Effect.succeed({ status: "paid", ref: `sandbox_${r.payoutId}` })
}

export const stripePayouts = (options: { readonly apiBase: string; readonly apiKey: Redacted.Redacted }) =>
  Effect.map(HttpClient.HttpClient, (http): PayoutProviderShape => ({
    method: "stripe_transfer",
    pay: (r) =>
      Effect.gen(function*() {
        if (r.destination === null) {
          return { status: "failed", reason: "the partner has no Stripe account for payouts" } as const
        }
        const request = HttpClientRequest.post(`${options.apiBase.replace(/\/+$/, "")}/v1/transfers`).pipe(
          HttpClientRequest.bearerToken(Redacted.value(options.apiKey)),
          HttpClientRequest.setHeader("idempotency-key", r.payoutId),
          HttpClientRequest.bodyUrlParams({
            amount: String(r.amountCents),
            currency: r.currency.toLowerCase(),
            destination: r.destination,
            transfer_group: r.payoutId,
            "metadata[payout_id]": r.payoutId,
            "metadata[partner_id]": r.partnerId
          })
        )
        const response = yield* http.execute(request).pipe(Effect.timeout(Duration.seconds(20)))
        const body: any = yield* response.json.pipe(Effect.orElseSucceed(() => ({})))
        if (response.status >= 200 && response.status < 300 && typeof body?.id === "string") {
          return { status: "paid", ref: body.id } as const
        }
        if (response.status >= 400 && response.status < 500 && response.status !== 409 && response.status !== 429) {
          return {
            status: "failed",
            reason: `stripe ${response.status}: ${String(body?.error?.message ?? "refused").slice(0, 300)}`
          } as const
        }
        return { status: "pending", reason: `stripe ${response.status}` } as const
      }).pipe(
        Effect.scoped,
        Effect.catchAll((e) => Effect.succeed({ status: "pending", reason: `stripe unreachable: ${e._tag}` } as const))
      )
  }))

export const PayoutProviderLive = Layer.effect(
  PayoutProvider,
  Effect.gen(function*() {
    const ledgerSettings = yield* LedgerConfig
    if (ledgerSettings.payoutProvider === "sandbox") return SandboxPayouts
    if (Option.isNone(ledgerSettings.stripeApiKey)) {
      return yield* Effect.dieMessage("PAYOUT_PROVIDER=stripe needs STRIPE_API_KEY")
    }
    return yield* stripePayouts({ apiBase: ledgerSettings.stripeApiBase, apiKey: ledgerSettings.stripeApiKey.value })
  })
)
