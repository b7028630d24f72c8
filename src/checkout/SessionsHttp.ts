/**
 * Handlers of the partner's checkout-session endpoints (JSON, signed): open a hosted checkout for a
 * listed name (idempotent per credential, redirect URLs checked) and read one back with its order.
 * The pages the buyer then sees are ./Http.ts.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Clock, Effect, Option } from "effect"
import { Api } from "../app/Api.js"
import { redirectUrlProblem } from "../domain/Checkout.js"
import { CurrentPartner } from "../partner/Auth.js"
import { domainParam, iso } from "../partner/Common.js"
import { Orders } from "../partner/orders/Orders.js"
import { AppConfig } from "../platform/Config.js"
import { Idempotency, payloadFingerprint } from "../platform/http/Idempotency.js"
import { CheckoutSession, CheckoutSessionRequest } from "./Api.js"
import { Checkout } from "./Checkout.js"
import { InvalidRedirectUrl } from "./Errors.js"
import type { SessionRow } from "./Repo.js"

export const CheckoutSessionsHttpLive = HttpApiBuilder.group(
  Api,
  "checkoutSessions",
  (handlers) =>
    Effect.gen(function*() {
      const checkout = yield* Checkout
      const orders = yield* Orders
      const config = yield* AppConfig
      const createSessions = (yield* Idempotency).endpoint({
        success: CheckoutSession,
        status: 201,
        fingerprint: payloadFingerprint("POST /api/partner/v1/checkout-session", CheckoutSessionRequest)
      })

      const sessionJson = (s: SessionRow) =>
        Effect.gen(function*() {
          const order = s.order_id === null ? null : yield* Effect.option(orders.detail(s.order_id))
          const now = yield* Clock.currentTimeMillis
          return {
            id: s.id,
            checkout_url: checkout.checkoutUrl(s),
            domain: s.domain ?? "",
            price_cents: s.price_cents,
            currency: s.currency,
            status: checkout.isExpired(s, now) ? "expired" as const : s.status,
            expires_at: iso(s.expires_at)!,
            reference: s.reference,
            return_url: s.return_url,
            cancel_url: s.cancel_url,
            environment: s.environment,
            created_at: iso(s.created_at)!,
            paid_at: iso(s.paid_at),
            order: order === null || Option.isNone(order)
              ? null
              : {
                public_id: order.value.public_id,
                status: order.value.status,
                payment_model: s.referral_partner_id ? "referral" : "hosted_checkout"
              }
          }
        })

      const checkUrl = (field: string, url: string | undefined) => {
        if (url === undefined) return Effect.void
        const problem = redirectUrlProblem(url, config.production)
        return problem ? Effect.fail(InvalidRedirectUrl.of(field, problem)) : Effect.void
      }

      return handlers
        .handle("createCheckoutSession", ({ headers, payload }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            yield* checkUrl("return_url", payload.return_url)
            yield* checkUrl("cancel_url", payload.cancel_url)
            const name = yield* domainParam("domain", payload.domain)
            const open = Effect.flatMap(
              checkout.openForPartner(partner, name.ascii, {
                domain: name.ascii,
                buyerEmail: payload.buyer_email,
                returnUrl: payload.return_url,
                cancelUrl: payload.cancel_url,
                reference: payload.reference
              }),
              sessionJson
            )
            const result = yield* createSessions.run(
              {
                scope: `checkout-sessions:${partner.credentialId}`,
                key: headers["idempotency-key"],
                request: payload,
                transactional: true
              },
              open
            )
            return result.value
          }))
        .handle("getCheckoutSession", ({ path }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            const s = yield* checkout.sessionFor(path.id, partner)
            return yield* sessionJson(s)
          }))
    })
)
