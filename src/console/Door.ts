/**
 * The partner console's door, shared by its handler groups (./Http.ts, ./WebhookHttp.ts,
 * ./OrderHttp.ts, ./MoneyHttp.ts): the session (anonymous → 303 to sign in and come back), the
 * partner chosen among the person's, the same-origin check and the form's token (the account
 * pages' tokens, bound to the session), the audit record of a member's write, and a refusal as a
 * page with its status. The rules themselves stay in the partner services; this only lets people in.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import { type AuditAction, AuditLog } from "../audit/AuditLog.js"
import { currentSession } from "../identity/Session.js"
import { Members, type Membership } from "../partner/members/Members.js"
import { AppConfig } from "../platform/Config.js"
import { clientIpOf } from "../platform/http/ClientIp.js"
import { declaredStatus } from "../platform/http/Errors.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { makeAccountForms, STALE_FORM, toSignIn } from "../storefront/AccountForms.js"
import { type StorePage, storePage } from "../storefront/Layout.js"
import { noPartnerPage, refusalPage } from "./Pages.js"
import type { Session } from "./Views.js"

/** A refusal's status: the one its `DomainError` class declares; a stale form 403; else 400. */
export const statusOf = (e: { readonly _tag: string }) => declaredStatus(e) ?? (e._tag === "StaleForm" ? 403 : 400)

/** A refusal page's title by its status (a URL the page cannot read, no such partner or row); else "Not allowed". */
const REFUSAL_TITLES: Readonly<Record<number, string>> = { 400: "Cannot show this page", 404: "Not found" }

/** A refusal of the partner services, or of the form itself. */
export type Refusal = { readonly _tag: string; readonly message: string }

export const makeDoor = Effect.gen(function*() {
  const members = yield* Members
  const config = yield* AppConfig
  const audit = yield* AuditLog
  const forms = makeAccountForms((yield* ServiceSecret).key("account-csrf"), config.baseUrl)

  const page = (p: StorePage, status = 200, script?: string) => storePage(p, { status, script })

  const withSession = <E, R>(
    here: string,
    f: (session: Session) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Effect.flatMap(currentSession, (s) => Option.isNone(s) ? Effect.succeed(toSignIn(here)) : f(s.value))

  /** The partner a page is about: the one asked for, else the person's first; none without membership. */
  const chosen = (session: Session, partner: string | undefined) =>
    Effect.map(members.partnersOf(session.user.id), (mine) => ({
      mine,
      partnerId: partner ?? mine[0]?.partnerId
    }))

  const fresh = (request: HttpServerRequest.HttpServerRequest, session: Session, csrf: string | undefined) =>
    forms.accepts(request, csrf, { sessionId: session.id })

  /**
   * A member's write, recorded in the audit log under their e-mail and IP. The partner services
   * check membership and role inside `effect`, so a refused write records nothing.
   */
  const audited = <A, E, R>(
    request: HttpServerRequest.HttpServerRequest,
    session: Session,
    what: AuditAction<A>,
    effect: Effect.Effect<A, E, R>
  ) => audit.audited({ actor: session.user.email, ip: clientIpOf(request, config.trustProxy) }, what, effect)

  const refused = (e: Refusal) => {
    const status = statusOf(e)
    return page(refusalPage(REFUSAL_TITLES[status] ?? "Not allowed", e.message), status)
  }

  /**
   * A section's GET: the session, the chosen partner (none: the no-partner page), its view (a page,
   * or a response with its own status or script); a refusal's page.
   */
  const sectionPage = <R>(
    here: string,
    partner: string | undefined,
    view: (
      session: Session,
      others: ReadonlyArray<Membership>,
      partnerId: string
    ) => Effect.Effect<StorePage | HttpServerResponse.HttpServerResponse, Refusal, R>
  ) =>
    withSession(here, (session) =>
      Effect.gen(function*() {
        const { mine, partnerId } = yield* chosen(session, partner)
        if (partnerId === undefined) return page(noPartnerPage(session.user.email))
        return yield* view(session, mine, partnerId).pipe(
          // A view answers its page (200), or a response of its own (a status, a script).
          Effect.map((p) => HttpServerResponse.isServerResponse(p) ? p : page(p)),
          Effect.catchAll((e) => Effect.succeed(refused(e)))
        )
      }))

  /**
   * A section's page again after a refused post, with the refusal's message and status (for `post`'s
   * `again`); a partner the person is not in is the 404 page.
   */
  const sectionAgain = (
    view: (
      session: Session,
      others: ReadonlyArray<Membership>,
      partnerId: string,
      message: { readonly error: string }
    ) => Effect.Effect<StorePage, Refusal>
  ) =>
  (session: Session, others: ReadonlyArray<Membership>, partnerId: string) =>
  (e: Refusal): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
    e._tag === "NotAMember"
      ? Effect.succeed(refused(e))
      : Effect.map(view(session, others, partnerId, { error: e.message }), (p) => page(p, statusOf(e))).pipe(
        Effect.catchAll((other) => Effect.succeed(refused(other)))
      )

  /**
   * A form's post: session, origin and token, then `act`; a refusal (the stale form's too) is
   * answered by `again`, the section's page with its message.
   */
  const post = (
    here: string,
    request: HttpServerRequest.HttpServerRequest,
    payload: { readonly partner?: string | undefined; readonly csrf?: string | undefined },
    again: (
      session: Session,
      others: ReadonlyArray<Membership>,
      partnerId: string
    ) => (e: Refusal) => Effect.Effect<HttpServerResponse.HttpServerResponse>,
    act: (
      session: Session,
      partnerId: string,
      others: ReadonlyArray<Membership>
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse, Refusal>
  ) =>
    withSession(here, (session) =>
      Effect.gen(function*() {
        const { mine, partnerId } = yield* chosen(session, payload.partner)
        if (partnerId === undefined) return page(noPartnerPage(session.user.email), 404)
        const refusedHere = again(session, mine, partnerId)
        if (!(yield* fresh(request, session, payload.csrf))) {
          return yield* refusedHere({ _tag: "StaleForm", message: STALE_FORM })
        }
        return yield* act(session, partnerId, mine).pipe(Effect.catchAll(refusedHere))
      }))

  return { members, forms, page, withSession, chosen, fresh, audited, refused, sectionPage, sectionAgain, post }
})
