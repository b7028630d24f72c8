/**
 * Handlers of the partner console (./Api.ts): the session (anonymous → 303 to sign in and come
 * back), then for a post the same-origin check and the form's token (the account pages' tokens,
 * bound to the session), then one call of the partner slice's services (Members, PartnerKeys),
 * which check membership and role → the page. A refusal of the service is a page with its status:
 * another partner's data is the 404 of a partner that does not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Layer } from "effect"
import { Api } from "../app/Api.js"
import { isScope, type PartnerEnvironment } from "../partner/Auth.js"
import { PartnerKeys } from "../partner/members/Keys.js"
import { INVITE_PATH, type Membership } from "../partner/members/Members.js"
import { isRole } from "../partner/members/Roles.js"
import { seeOther } from "../platform/http/Html.js"
import { STALE_FORM } from "../storefront/AccountForms.js"
import { CopyIsland } from "../storefront/Island.js"
import { makeDoor, type Refusal } from "./Door.js"
import { secretPage } from "./KeyPages.js"
import { invitedPage } from "./MemberPages.js"
import { consolePath, invitationPage, refusalPage } from "./Pages.js"
import { makeViews, type Session } from "./Views.js"

const listOf = (v: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  v === undefined ? [] : typeof v === "string" ? [v] : v

export const ConsoleHttpLive = HttpApiBuilder.group(Api, "consolePages", (handlers) =>
  Effect.gen(function*() {
    const door = yield* makeDoor
    const { audited, forms, fresh, members, page, refused, withSession } = door
    const keys = yield* PartnerKeys
    const copy = yield* CopyIsland
    const views = makeViews(members, keys, forms)

    /** A section's form post: session, origin and token, then `act` (refusals shown on the section page). */
    const post = (
      section: "keys" | "members",
      request: HttpServerRequest.HttpServerRequest,
      payload: { readonly partner?: string | undefined; readonly csrf?: string | undefined },
      act: (
        session: Session,
        partnerId: string,
        others: ReadonlyArray<Membership>
      ) => Effect.Effect<HttpServerResponse.HttpServerResponse, Refusal>
    ) => door.post(`/console/${section}`, request, payload, door.sectionAgain(views[section]), act)

    return handlers
      .handle("overview", ({ urlParams }) => door.sectionPage("/console", urlParams.partner, views.overview))
      .handle("keysPage", ({ urlParams }) => door.sectionPage("/console/keys", urlParams.partner, views.keys))
      .handle("membersPage", ({ urlParams }) => door.sectionPage("/console/members", urlParams.partner, views.members))
      .handle("createKey", ({ payload, request }) =>
        post("keys", request, payload, (session, partnerId, mine) =>
          Effect.gen(function*() {
            const environment: PartnerEnvironment = payload.environment === "live" ? "live" : "sandbox"
            const scopes = listOf(payload.scope).filter(isScope)
            // Recorded without the secret: the key's id, environment and scopes.
            const issued = yield* audited(
              request,
              session,
              {
                action: "console.key_create",
                target: partnerId,
                after: (k) => ({ key_id: k.key_id, environment: k.environment, scopes: k.scopes })
              },
              keys.create(session.user.id, partnerId, environment, scopes)
            )
            const m = yield* members.require(session.user.id, partnerId, "view")
            return page(secretPage(m, mine, issued), 201, yield* copy.src)
          })))
      .handle("rotateKey", ({ payload, request }) =>
        post("keys", request, payload, (session, partnerId, mine) =>
          Effect.gen(function*() {
            const keyId = payload.key_id ?? ""
            const issued = yield* audited(
              request,
              session,
              {
                action: "console.key_rotate",
                target: keyId,
                after: (k) => ({ partner_id: partnerId, key_id: k.key_id })
              },
              keys.rotate(session.user.id, partnerId, keyId)
            )
            const m = yield* members.require(session.user.id, partnerId, "view")
            return page(secretPage(m, mine, issued, keyId), 201, yield* copy.src)
          })))
      .handle("revokeKey", ({ payload, request }) =>
        post("keys", request, payload, (session, partnerId) =>
          Effect.as(
            audited(
              request,
              session,
              { action: "console.key_revoke", target: payload.key_id ?? "", after: () => ({ partner_id: partnerId }) },
              keys.revoke(session.user.id, partnerId, payload.key_id ?? "")
            ),
            seeOther(consolePath("/console/keys", partnerId))
          )))
      .handle("inviteMember", ({ payload, request }) =>
        post("members", request, payload, (session, partnerId, mine) =>
          Effect.gen(function*() {
            const role = payload.role ?? ""
            const email = (payload.email ?? "").trim().toLowerCase()
            if (!isRole(role) || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) || email.length > 254) {
              return yield* door.sectionAgain(views.members)(session, mine, partnerId)({
                _tag: "BadInvite",
                message: "Enter an e-mail address and choose a role."
              })
            }
            // Recorded without the link: whoever holds it can join the partner.
            const invited = yield* audited(
              request,
              session,
              {
                action: "member.invite",
                target: partnerId,
                after: (i) => ({ id: i.id, email: i.email, role: i.role })
              },
              members.inviteAsMember(session.user.id, partnerId, email, role)
            )
            const m = yield* members.require(session.user.id, partnerId, "view")
            return page(invitedPage(m, mine, invited), 201, yield* copy.src)
          })))
      .handle("removeMember", ({ payload, request }) =>
        post("members", request, payload, (session, partnerId) =>
          Effect.as(
            audited(
              request,
              session,
              { action: "member.remove", target: partnerId, after: () => ({ user_id: payload.user_id ?? "" }) },
              members.remove(session.user.id, partnerId, payload.user_id ?? "")
            ),
            seeOther(consolePath("/console/members", partnerId))
          )))
      .handle("invitationPage", ({ path }) =>
        withSession(`${INVITE_PATH}${path.token}`, (session) =>
          Effect.gen(function*() {
            const offer = yield* Effect.either(members.invitation(path.token))
            if (offer._tag === "Left") {
              return refused(offer.left)
            }
            const csrf = forms.token({ sessionId: session.id }, yield* Clock.currentTimeMillis)
            return page(invitationPage({
              partnerName: offer.right.partner_name,
              role: offer.right.role,
              email: offer.right.email,
              expiresAt: offer.right.expires_at,
              signedInAs: session.user.email,
              csrf,
              action: `${INVITE_PATH}${path.token}`
            }))
          })))
      .handle("acceptInvitation", ({ path, payload, request }) =>
        withSession(`${INVITE_PATH}${path.token}`, (session) =>
          Effect.gen(function*() {
            if (!(yield* fresh(request, session, payload.csrf))) {
              return page(refusalPage("Not allowed", STALE_FORM), 403)
            }
            const joined = yield* Effect.either(members.accept(session.user, path.token))
            if (joined._tag === "Left") {
              return refused(joined.left)
            }
            return seeOther(consolePath("/console", joined.right.partnerId))
          })))
  })).pipe(Layer.provide(CopyIsland.Default))
