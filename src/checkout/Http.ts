/**
 * Handlers of the hosted checkout's pages (HTML: decode → one service call → page), the buy page and
 * Stripe's webhook. The partner's session endpoints (JSON) are ./SessionsHttp.ts.
 *
 * Form posts are CSRF-safe twice over: the Origin (or Fetch Metadata) must be this service, and
 * the form carries an HMAC (SERVICE_SECRET) that no other page has: of the session id on the
 * payment pages, of the environment, domain and issue time on the buy page (./BuyForm.ts).
 *
 * The buy page's GET only reads (a crawler or a link preview opens nothing); its form post opens
 * the session. Both are rate limited per IP (`limits` in ./Api.ts), answered with an HTML 429.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Clock, Effect, Option, Redacted } from "effect"
import { createHmac, randomBytes } from "node:crypto"
import { Api } from "../app/Api.js"
import { verifyStripeSignature } from "../domain/Checkout.js"
import { isSameOriginWrite } from "../identity/Session.js"
import type { ListingHeld } from "../market/Errors.js"
import { domainParam } from "../partner/Common.js"
import { AppConfig } from "../platform/Config.js"
import { BadRequestError } from "../platform/http/Errors.js"
import { errorPageHtml, htmlResponse, seeOther } from "../platform/http/Html.js"
import { safeEqual } from "../platform/security/Crypto.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { REFERRAL_COOKIE } from "../referrals/Attribution.js"
import { buyPath, makeBuyForm } from "./BuyForm.js"
import { Checkout, MARKETPLACE_NAME, type PayResult, reservedMessage } from "./Checkout.js"
import type { DomainNotForSale, DomainNotPriced, ListingUnavailable } from "./Errors.js"
import { buyOfferPage, checkoutPage, confirmPage, messagePage, receiptPage } from "./Pages.js"
import type { SessionRow } from "./Repo.js"
import { CheckoutConfig } from "./Settings.js"

const nonce = () => randomBytes(16).toString("base64url")
const page = (html: string, status = 200, n?: string) => htmlResponse(html, { status, ...(n ? { nonce: n } : {}) })

const tampered = () =>
  page(
    errorPageHtml(
      "Invalid checkout link",
      "This checkout link is not valid: it was changed or cut short.",
      "Open the link exactly as the seller sent it, or ask the seller for a new one."
    ),
    400
  )
const expired = () =>
  page(
    errorPageHtml(
      "Checkout link expired",
      "This checkout link has expired. Nothing was charged.",
      "Ask the seller for a new link."
    ),
    410
  )

/** The path parameter as a domain name (percent-decoded; a malformed escape is not a name). */
const buyName = (raw: string) => {
  let decoded: string
  try {
    decoded = decodeURIComponent(raw)
  } catch {
    return Effect.succeed(Option.none<string>())
  }
  return Effect.map(Effect.option(domainParam("domain", decoded)), Option.map((n) => n.ascii))
}

const notADomain = (raw: string) =>
  page(errorPageHtml("Not for sale", `${raw.slice(0, 100)} is not a domain name.`), 404)

const LIMITS = { email: 254, name: 200, country: 2, card_number: 23, card_exp: 7, card_cvc: 4, csrf: 100 } as const

export const CheckoutPagesHttpLive = HttpApiBuilder.group(Api, "checkoutPages", (handlers) =>
  Effect.gen(function*() {
    const checkout = yield* Checkout
    const config = yield* AppConfig
    const checkoutSettings = yield* CheckoutConfig
    const secrets = yield* ServiceSecret
    const csrfKey = secrets.key("checkout-csrf")
    const csrfFor = (sessionId: string) => createHmac("sha256", csrfKey).update(sessionId).digest("base64url")
    const buyForm = makeBuyForm(secrets.key("buy-csrf"))
    const notForSale = (domain: string, e: DomainNotForSale | DomainNotPriced | ListingUnavailable | ListingHeld) =>
      e._tag === "DomainNotForSale"
        ? page(errorPageHtml("Not for sale", `${domain} is not listed for sale.`, "Search for another name."), 404)
        : e._tag === "ListingHeld"
        ? page(messagePage("Reserved", reservedMessage(e.heldUntil)), 409)
        : page(errorPageHtml("Not available", e.message), 409)
    const sellerOf = (s: SessionRow) => (s.kind === "partner" ? s.partner_name ?? "Partner" : MARKETPLACE_NAME)

    /** The page a session shows now (form, confirmation step, pending, receipt). */
    const current = (
      s: SessionRow,
      pt: string,
      extra?: { error?: string; values?: { email?: string; name?: string; country?: string }; status?: number }
    ) => {
      const seller = sellerOf(s)
      switch (s.status) {
        case "paid":
          return page(receiptPage(s, seller))
        case "refunded":
          return page(
            messagePage(
              "No longer available",
              s.last_error ?? "This domain is no longer available. Your payment was refunded."
            ),
            409
          )
        case "processing":
          return page(
            messagePage(
              "Payment in progress",
              "We are waiting for the payment's result. You will not be charged twice.",
              { kind: "muted", retry: `/checkout?pt=${encodeURIComponent(pt)}` }
            )
          )
        case "requires_action": {
          if (!checkout.takesCard(s)) {
            // The buyer is paying on the provider's page: back there, or give up.
            const back = `/checkout/return?pt=${encodeURIComponent(pt)}`
            return page(
              messagePage(
                "Finish your payment",
                "Your payment is waiting on the payment provider's secure page. The domain is held for you meanwhile.",
                { kind: "muted", retry: back, retryLabel: "Continue to payment", cancel: `${back}&cancelled=1` }
              )
            )
          }
          const n = nonce()
          return page(confirmPage({ session: s, seller, pt, csrf: csrfFor(s.id), nonce: n }), 200, n)
        }
        default: {
          const n = nonce()
          // Only the answer to a post carries a message: a reloaded page starts clean, whatever the
          // last attempt's outcome (still in `last_error` for the API and the return page).
          const error = extra?.error
          return page(
            checkoutPage({
              session: s,
              seller,
              takesCard: checkout.takesCard(s),
              pt,
              csrf: csrfFor(s.id),
              nonce: n,
              ...(error ? { error } : {}),
              ...(extra?.values ? { values: extra.values } : {})
            }),
            extra?.status ?? 200,
            n
          )
        }
      }
    }

    const reload = (id: string) => Effect.map(checkout.byId(id), Option.getOrThrow)

    /** The answer to a payment attempt's result. */
    const answer = (
      r: PayResult,
      s: SessionRow,
      pt: string,
      values?: { email?: string; name?: string; country?: string }
    ) =>
      Effect.gen(function*() {
        switch (r._tag) {
          case "Paid":
            return seeOther(r.redirect ?? `/checkout?pt=${encodeURIComponent(pt)}`)
          case "Invalid":
            return current(yield* reload(s.id), pt, { error: r.message, ...(values ? { values } : {}), status: 400 })
          case "Declined":
            return current(yield* reload(s.id), pt, { error: r.message, ...(values ? { values } : {}), status: 402 })
          case "Unavailable":
            return page(messagePage("No longer available", r.message), 409)
          case "RequiresAction":
            if (r.redirectUrl) return seeOther(r.redirectUrl)
            return current(yield* reload(s.id), pt)
          case "Pending":
            return page(
              messagePage("Payment in progress", r.message, {
                kind: "muted",
                retry: `/checkout?pt=${encodeURIComponent(pt)}`
              })
            )
        }
      })

    const guard = (
      request: { readonly method: string; readonly headers: Record<string, string | undefined> },
      s: SessionRow,
      csrf: string | undefined
    ) => {
      if (!isSameOriginWrite(request, config.baseUrl)) {
        return Option.some(
          page(
            errorPageHtml(
              "Request refused",
              "This form was posted from another site.",
              "Open the checkout link again."
            ),
            403
          )
        )
      }
      if (csrf === undefined || csrf.length > LIMITS.csrf || !safeEqual(csrf, csrfFor(s.id))) {
        return Option.some(
          page(errorPageHtml("Stale form", "This payment form is out of date.", "Open the checkout link again."), 403)
        )
      }
      return Option.none()
    }

    return handlers
      .handle("checkoutPage", ({ urlParams }) =>
        Effect.gen(function*() {
          const t = yield* checkout.fromToken(urlParams.pt)
          if (t._tag === "Tampered") return tampered()
          if (t._tag === "Expired") return expired()
          // Another seller's quote holds the domain: say until when, and show no payment form.
          if (t.session.status === "open") {
            const held = yield* checkout.heldUntil(t.session)
            if (Option.isSome(held)) return page(messagePage("Reserved", reservedMessage(held.value)), 409)
          }
          return current(t.session, urlParams.pt!)
        }))
      .handle("checkoutPay", ({ payload, request, urlParams }) =>
        Effect.gen(function*() {
          const t = yield* checkout.fromToken(urlParams.pt)
          if (t._tag === "Tampered") return tampered()
          if (t._tag === "Expired") return expired()
          const s = t.session
          const pt = urlParams.pt!
          const refused = guard(request, s, payload.csrf)
          if (Option.isSome(refused)) return refused.value
          if (s.status !== "open") return current(s, pt)
          for (const [field, max] of Object.entries(LIMITS)) {
            const v = (payload as Record<string, string | undefined>)[field]
            if (v !== undefined && v.length > max) {
              return page(
                errorPageHtml(
                  "Bad request",
                  `The field ${field} is longer than ${max} characters.`,
                  "Go back and correct it."
                ),
                400
              )
            }
          }
          const values = {
            email: (payload.email ?? "").trim(),
            name: (payload.name ?? "").trim(),
            country: (payload.country ?? "").trim().toUpperCase()
          }
          const invalid = !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email)
            ? "Enter a valid e-mail address."
            : values.name === ""
            ? "Enter your full name."
            : !/^[A-Z]{2}$/.test(values.country)
            ? "Enter your country as a 2-letter code, e.g. US."
            : undefined
          if (invalid) return current(s, pt, { error: invalid, values, status: 400 })
          const r = yield* checkout.pay(s.id, {
            ...values,
            cardNumber: payload.card_number ?? "",
            cardExp: payload.card_exp ?? "",
            cardCvc: payload.card_cvc ?? ""
          })
          return yield* answer(r, s, pt, values)
        }))
      .handle("checkoutConfirm", ({ payload, request, urlParams }) =>
        Effect.gen(function*() {
          const t = yield* checkout.fromToken(urlParams.pt)
          if (t._tag === "Tampered") return tampered()
          if (t._tag === "Expired") return expired()
          const refused = guard(request, t.session, payload.csrf)
          if (Option.isSome(refused)) return refused.value
          const r = yield* checkout.afterAction(t.session.id, true)
          return yield* answer(r, t.session, urlParams.pt!)
        }))
      .handle("checkoutReturn", ({ urlParams }) =>
        Effect.gen(function*() {
          const t = yield* checkout.fromToken(urlParams.pt)
          if (t._tag === "Tampered") return tampered()
          if (t._tag === "Expired") return expired()
          const r = urlParams.cancelled === undefined
            ? yield* checkout.afterAction(t.session.id, false)
            : yield* checkout.cancelAttempt(t.session.id)
          return yield* answer(r, t.session, urlParams.pt!)
        }))
      .handle("buyPage", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const environment = urlParams.env ?? "live"
          const name = yield* buyName(path.domain)
          if (Option.isNone(name)) return notADomain(path.domain)
          const offer = yield* Effect.either(checkout.offer(environment, name.value))
          if (offer._tag === "Left") return notForSale(name.value, offer.left)
          const n = nonce()
          const csrf = buyForm.token(environment, name.value, yield* Clock.currentTimeMillis)
          return page(
            buyOfferPage({ offer: offer.right, action: buyPath(environment, name.value), csrf, nonce: n }),
            200,
            n
          )
        }))
      .handle("buyStart", ({ path, payload, request, urlParams }) =>
        Effect.gen(function*() {
          const environment = urlParams.env ?? "live"
          const name = yield* buyName(path.domain)
          if (Option.isNone(name)) return notADomain(path.domain)
          if (!isSameOriginWrite(request, config.baseUrl)) {
            return page(
              errorPageHtml("Request refused", "This form was posted from another site.", "Open the buy page again."),
              403
            )
          }
          if (!buyForm.valid(payload.csrf, environment, name.value, yield* Clock.currentTimeMillis)) {
            return page(
              errorPageHtml(
                "Stale form",
                "This purchase form is out of date.",
                "Open the buy page again and press Continue to payment."
              ),
              403
            )
          }
          const opened = yield* Effect.either(
            checkout.openForMarketplace(environment, name.value, request.cookies[REFERRAL_COOKIE])
          )
          if (opened._tag === "Left") return notForSale(name.value, opened.left)
          return seeOther(checkout.checkoutPath(opened.right))
        }))
      .handleRaw("stripeWebhook", ({ request }) =>
        Effect.gen(function*() {
          const body = yield* request.text.pipe(Effect.orDie)
          const secret = checkoutSettings.stripeWebhookSecret
          if (Option.isNone(secret)) {
            return yield* new BadRequestError({
              code: "webhook_not_configured",
              message: "STRIPE_WEBHOOK_SECRET is not set"
            })
          }
          const now = yield* Clock.currentTimeMillis
          const verified = verifyStripeSignature(
            request.headers["stripe-signature"],
            body,
            Redacted.value(secret.value),
            Math.floor(now / 1000)
          )
          if (!verified.ok) {
            return yield* new BadRequestError({
              code: "invalid_signature",
              message: `Stripe-Signature: ${verified.reason}`
            })
          }
          const event = yield* Effect.try({
            try: (): unknown => JSON.parse(body),
            catch: () => new BadRequestError({ code: "validation_error", message: "the body is not JSON" })
          })
          // Acknowledged (200) whatever it is about, so Stripe stops retrying: an event that matches
          // no payment of ours is logged and changes nothing.
          yield* checkout.providerEvent(event)
          return { received: true }
        }))
  }))
