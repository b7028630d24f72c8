/**
 * Hosted checkout settings, read with `Config` by this capability.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | PAYMENT_PROVIDER | sandbox | provider of live sessions: `sandbox` or `stripe` (sandbox credentials always use `sandbox`) |
 * | STRIPE_API_KEY / STRIPE_API_BASE | — / https://api.stripe.com | shared with payouts (src/partner/ledger/Settings.ts) |
 * | STRIPE_WEBHOOK_SECRET | — | `whsec_…`: verifies `Stripe-Signature` on POST /api/checkout/stripe/webhook |
 * | CHECKOUT_SESSION_TTL | 7 days | a session (and its `pt` link) expires this long after it is opened |
 * | CHECKOUT_RECONCILE_INTERVAL | 1 minute | how often payments in progress (`processing`, or waiting on Stripe's page) are asked of the provider: the poll for a lost webhook (0 disables; one run at boot regardless) |
 * | CHECKOUT_RECONCILE_AFTER | 30 seconds | a payment in progress is polled once it is this old |
 */
import { Config, Context, Duration, Layer, Option, type Redacted } from "effect"
import { realInProduction } from "../platform/Deployment.js"
import { durationSetting } from "../platform/DurationSetting.js"

export interface CheckoutSettings {
  readonly paymentProvider: "sandbox" | "stripe"
  readonly stripeWebhookSecret: Option.Option<Redacted.Redacted>
  readonly sessionTtl: Duration.Duration
  readonly reconcileInterval: Duration.Duration
  readonly reconcileAfter: Duration.Duration
}

export const checkoutConfig: Config.Config<CheckoutSettings> = Config.all({
  paymentProvider: realInProduction(
    "PAYMENT_PROVIDER",
    Config.literal("sandbox", "stripe")("PAYMENT_PROVIDER").pipe(Config.withDefault("sandbox" as const)),
    "sandbox",
    "takes fake cards (4242 4242 4242 4242 pays for live names)",
    "set PAYMENT_PROVIDER=stripe"
  ),
  stripeWebhookSecret: Config.option(Config.redacted("STRIPE_WEBHOOK_SECRET")),
  sessionTtl: durationSetting("CHECKOUT_SESSION_TTL", Duration.days(7)),
  reconcileInterval: durationSetting("CHECKOUT_RECONCILE_INTERVAL", Duration.minutes(1)),
  reconcileAfter: durationSetting("CHECKOUT_RECONCILE_AFTER", Duration.seconds(30))
})

export class CheckoutConfig extends Context.Tag("checkout/CheckoutConfig")<CheckoutConfig, CheckoutSettings>() {
  static readonly Live = Layer.effect(CheckoutConfig, checkoutConfig)
}
