/**
 * Where the buyer's money comes from: a PaymentProvider layer. Sessions of sandbox credentials
 * always pay through `sandbox`; live sessions through PAYMENT_PROVIDER (`sandbox` or `stripe`).
 *
 * Two flows:
 * - `card` (`sandbox`): our page takes the card; `create` names the payment (no charge), the
 *   service stores that reference, then `confirm` charges. No network. Stripe's test cards:
 *   4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined, 4000 0000 0000 3220 needs a
 *   confirmation step (our own page stands in for the bank's). The outcome is part of the
 *   reference, so it survives a restart.
 * - `hosted` (`stripe`, ./StripeCheckout.ts): card data never touches the service. `create` makes
 *   the provider's own payment page (a Stripe Checkout Session) and answers its URL; the service
 *   stores the reference, then sends the buyer there. The payment completes on the provider's
 *   signed event (`readEvent`) or on a poll (`retrieve`: the buyer's return, reconciliation).
 *
 * Contract: a `succeeded` outcome that carries `payment` is checked against the payment the
 * service started (src/domain/Checkout.ts `paymentMismatch`) before anything is recorded.
 * `unknown` means "no answer": the session stays reserved and reconciliation
 * (src/checkout/Worker.ts) asks `retrieve` later. Card numbers are never logged or stored.
 */
import { Context, Effect, Layer, Option } from "effect"
import { DECLINE_MESSAGE, sandboxOutcome } from "../domain/Checkout.js"
import { LedgerConfig } from "../partner/ledger/Settings.js"
import type { PaymentOutcome, PaymentProviderShape } from "./PaymentProviderShape.js"
import { CheckoutConfig } from "./Settings.js"
import { stripeCheckout } from "./StripeCheckout.js"

export {
  type PaymentOutcome,
  type PaymentProviderShape,
  type PaymentStart,
  PaymentUnavailable
} from "./PaymentProviderShape.js"

/** The providers: `sandbox` always, `live` per PAYMENT_PROVIDER. */
export class PaymentProviders extends Context.Tag("app/PaymentProviders")<PaymentProviders, {
  readonly sandbox: PaymentProviderShape
  readonly live: PaymentProviderShape
  readonly byName: (name: string) => PaymentProviderShape
}>() {
  /** The stand-in for a rule's test: the sandbox provider behind both names, no settings read. */
  static readonly Test: Layer.Layer<PaymentProviders> = Layer.sync(PaymentProviders, () => ({
    sandbox: SandboxPayments,
    live: SandboxPayments,
    byName: () => SandboxPayments
  }))
}

const SANDBOX_CODE = { succeeded: "ok", declined: "dc", requires_action: "3ds" } as const

export const SandboxPayments: PaymentProviderShape = {
  name: "sandbox",
  flow: "card",
  create: (p) =>
    Effect.succeed({
      ref: `pi_sbx_${p.sessionId.replace(/^cs_/, "")}_${p.attempt}_${
        SANDBOX_CODE[sandboxOutcome(p.card?.number ?? "")]
      }`,
      redirectUrl: null
    }),
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
  // A sandbox payment never charges before its confirmation step: an abandoned one is simply given up.
  cancel: (ref) =>
    Effect.map(
      SandboxPayments.retrieve(ref),
      (o): PaymentOutcome =>
        o.status === "requires_action" ? { status: "declined", message: "the confirmation step was not completed" } : o
    ),
  refund: () => Effect.succeed(true),
  readEvent: () => Option.none()
}

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
      live = yield* stripeCheckout({ apiBase: ledgerSettings.stripeApiBase, apiKey: ledgerSettings.stripeApiKey.value })
    }
    return {
      sandbox: SandboxPayments,
      live,
      byName: (name: string) => (name === "stripe" ? live : SandboxPayments)
    }
  })
)
