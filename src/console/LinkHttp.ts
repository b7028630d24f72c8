/**
 * Handlers of the console's links and analytics (./LinkApi.ts): the console's door (./Door.ts:
 * session, partner, same origin and token, audit record), then one call of MemberReferrals, which
 * checks membership, role and the environment's grant before the Referrals service answers → the
 * page. A refusal is the section page again with its status (a bad analytics window: 400 with the
 * window form); another partner's is the 404 page. Creating a link is audited
 * (`console.link_create`) with the link's id and fields.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Clock, Effect, Layer, Option } from "effect"
import { Api } from "../app/Api.js"
import { LINK_KINDS, type LinkKind, type Product, PRODUCTS } from "../domain/Referral.js"
import type { PartnerEnvironment } from "../partner/Auth.js"
import type { Membership } from "../partner/members/Members.js"
import { may } from "../partner/members/Roles.js"
import { seeOther } from "../platform/http/Html.js"
import { CONSOLE_WINDOW_DAYS, type LinkInput, MemberReferrals } from "../referrals/MemberReferrals.js"
import { CopyIsland } from "../storefront/Island.js"
import type { StorePage } from "../storefront/Layout.js"
import { analyticsPage } from "./AnalyticsPages.js"
import { makeDoor, type Refusal } from "./Door.js"
import { linksPage } from "./LinkPages.js"
import { askedEnvironment, sectionPath } from "./Lists.js"
import { qrSvg } from "./QrCode.js"
import type { Session } from "./Views.js"

const blank = (s: string | undefined) => (s === undefined || s.trim() === "" ? undefined : s.trim())

/** The form as the service's input: the fields the kind uses (the others are left out), or why not. */
const linkInput = (form: {
  readonly kind?: string | undefined
  readonly domain?: string | undefined
  readonly product?: string | undefined
  readonly campaign?: string | undefined
}): LinkInput | Refusal => {
  const kind = form.kind ?? "generic"
  const product = blank(form.product)
  const campaign = blank(form.campaign)
  if (!(LINK_KINDS as ReadonlyArray<string>).includes(kind)) {
    return { _tag: "BadLink", message: "Choose what the link leads to." }
  }
  if (kind === "product" && !(PRODUCTS as ReadonlyArray<string | undefined>).includes(product)) {
    return { _tag: "BadLink", message: "Choose the product page the link leads to." }
  }
  if (campaign !== undefined && campaign.length > 100) {
    return { _tag: "BadLink", message: "A campaign is at most 100 characters." }
  }
  return {
    kind: kind as LinkKind,
    domain: kind === "domain" ? blank(form.domain) : undefined,
    product: kind === "product" ? product as Product : undefined,
    campaign
  }
}

export const ConsoleLinkHttpLive = HttpApiBuilder.group(Api, "consoleLinkPages", (handlers) =>
  Effect.gen(function*() {
    const door = yield* makeDoor
    const { audited, forms, members, page } = door
    const referrals = yield* MemberReferrals
    const copy = yield* CopyIsland
    const csrfOf = (session: Session) =>
      Effect.map(Clock.currentTimeMillis, (now) => forms.token({ sessionId: session.id }, now))

    const linksView = (
      session: Session,
      others: ReadonlyArray<Membership>,
      partnerId: string,
      environment: PartnerEnvironment | undefined,
      message: { readonly error?: string } = {}
    ) =>
      Effect.gen(function*() {
        const seen = yield* referrals.links(session.user.id, partnerId, environment)
        const links = yield* Effect.forEach(
          seen.links,
          (l) => Effect.map(qrSvg(l.url), (qr) => ({ ...l, qr: Option.getOrNull(qr) })),
          { concurrency: 4 }
        )
        return linksPage({
          membership: seen.membership,
          others,
          environments: seen.environments,
          environment: seen.environment,
          affiliate: seen.affiliate,
          links,
          canManage: may(seen.membership.role, "manageLinks"),
          csrf: yield* csrfOf(session),
          ...message
        }) satisfies StorePage
      })

    const analyticsView = (
      session: Session,
      others: ReadonlyArray<Membership>,
      partnerId: string,
      q: {
        readonly environment?: string | undefined
        readonly from?: string | undefined
        readonly to?: string | undefined
      }
    ) =>
      referrals.analytics(session.user.id, partnerId, askedEnvironment(q.environment), q).pipe(
        Effect.map((seen) => page(analyticsPage({ ...seen, others }))),
        // A refused window: the page again with the reason and the form, as a 400.
        Effect.catchTag("InvalidReportQuery", (e) =>
          Effect.gen(function*() {
            const m = yield* members.require(session.user.id, partnerId, "view")
            const environment = askedEnvironment(q.environment) ?? "sandbox"
            return page(
              analyticsPage({
                membership: m,
                others,
                environments: [environment],
                environment,
                affiliate: true,
                report: null,
                from: q.from,
                to: q.to,
                error:
                  `The window was refused (${e.message}): choose two dates, at most ${CONSOLE_WINDOW_DAYS} days apart.`
              }),
              400
            )
          }))
      )

    return handlers
      .handle("linksPage", ({ urlParams }) =>
        door.sectionPage("/console/links", urlParams.partner, (session, others, partnerId) =>
          Effect.gen(function*() {
            const shown = yield* linksView(session, others, partnerId, askedEnvironment(urlParams.environment))
            return page(shown, 200, yield* copy.src)
          })))
      .handle("analyticsPage", ({ urlParams }) =>
        door.sectionPage("/console/analytics", urlParams.partner, (session, others, partnerId) =>
          analyticsView(session, others, partnerId, urlParams)))
      .handle("createLinkPage", ({ payload, request }) => {
        const environment = askedEnvironment(payload.environment) ?? "sandbox"
        return door.post(
          "/console/links",
          request,
          payload,
          door.sectionAgain((session, others, partnerId, message) =>
            linksView(session, others, partnerId, environment, message)
          ),
          (session, partnerId) =>
            Effect.gen(function*() {
              const input = linkInput(payload)
              if ("_tag" in input) {
                return yield* Effect.fail(input)
              }
              yield* audited(
                request,
                session,
                {
                  action: "console.link_create",
                  target: partnerId,
                  after: (l) => ({
                    link_id: l.id,
                    environment,
                    kind: l.kind,
                    domain: l.domain,
                    product: l.product,
                    campaign: l.campaign
                  })
                },
                referrals.createLink(session.user.id, partnerId, environment, input)
              )
              return seeOther(sectionPath("/console/links", partnerId, environment))
            })
        )
      })
  })).pipe(Layer.provide(CopyIsland.Default))
