/** Handlers of the referral endpoints: decode → one Referrals call → encode. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer, Option } from "effect"
import { Api } from "../app/Api.js"
import { CurrentPartner } from "../partner/Auth.js"
import { AppConfig } from "../platform/Config.js"
import { clientIpOf } from "../platform/http/ClientIp.js"
import { errorPageHtml, htmlResponse } from "../platform/http/Html.js"
import { REFERRAL_COOKIE } from "./Attribution.js"
import { Referrals } from "./Referrals.js"
import { ReferralConfig } from "./Settings.js"

export const PartnerReferralsHttpLive = HttpApiBuilder.group(
  Api,
  "partnerReferrals",
  (handlers) =>
    Effect.gen(function*() {
      const referrals = yield* Referrals
      return handlers
        .handle("createLink", ({ payload }) => Effect.flatMap(CurrentPartner, (p) => referrals.createLink(p, payload)))
        .handle(
          "listLinks",
          ({ urlParams }) =>
            Effect.flatMap(CurrentPartner, (p) => referrals.listLinks(p, urlParams.cursor, urlParams.limit))
        )
        .handle("myClicks", ({ urlParams }) => Effect.flatMap(CurrentPartner, (p) => referrals.clicks(p, urlParams)))
        .handle("mySales", ({ urlParams }) => Effect.flatMap(CurrentPartner, (p) => referrals.sales(p, urlParams)))
        .handle(
          "myCommissions",
          ({ urlParams }) => Effect.flatMap(CurrentPartner, (p) => referrals.commissions(p, urlParams))
        )
        .handle(
          "analytics",
          ({ urlParams }) => Effect.flatMap(CurrentPartner, (p) => referrals.analytics(p, urlParams))
        )
    })
)

const unknownCode = htmlResponse(
  errorPageHtml("Link not found", "This referral link does not exist.", "Check the address, or go to the home page."),
  { status: 404 }
)

export const ReferralRedirectHttpLive = HttpApiBuilder.group(
  Api,
  "referralRedirect",
  (handlers) =>
    Effect.gen(function*() {
      const referrals = yield* Referrals
      const config = yield* AppConfig
      const referralsSettings = yield* ReferralConfig
      // The cookie's attributes never change, so the header is one string concatenation rather than
      // a Cookie built and serialised per click (bench/referrals.ts: the redirect must keep up with
      // the pricing read). The value is base64url and ".", nothing to escape.
      const attributes = `; Max-Age=${referralsSettings.windowDays * 86_400}; Path=/; HttpOnly${
        config.production ? "; Secure" : ""
      }; SameSite=Lax`
      return handlers.handle("click", ({ path, request }) =>
        Effect.map(
          referrals.click(path.code, {
            ip: clientIpOf(request as HttpServerRequest.HttpServerRequest, config.trustProxy),
            userAgent: request.headers["user-agent"] ?? null,
            referrer: request.headers["referer"] ?? null
          }, request.cookies[REFERRAL_COOKIE]),
          Option.match({
            onNone: () => unknownCode,
            onSome: (r) =>
              HttpServerResponse.empty({
                status: 302,
                headers: {
                  location: r.location,
                  "cache-control": "no-store",
                  "referrer-policy": "no-referrer",
                  "set-cookie": `${REFERRAL_COOKIE}=${r.cookie}${attributes}`
                }
              })
          })
        ))
    })
)

export const ReferralHandlersLive = Layer.mergeAll(PartnerReferralsHttpLive, ReferralRedirectHttpLive)
