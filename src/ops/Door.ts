/**
 * The operator console's door: the session (anonymous → 303 to sign in and come back), the
 * account's operator role asked of the identity slice on every request (another account → the 403
 * page), and for a post the same-origin check and the form's token (the account pages' tokens,
 * bound to the session). A refusal of a service becomes a page with the error's own status.
 *
 * Contract: no handler of ./Http.ts reaches a service without passing `page` or `post`, and every
 * state-changing call inside `post` goes through `act`, which asks for the role again inside the
 * action and records it with the account's e-mail (`AuditLog.audited`, in the action's transaction).
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Option } from "effect"
import { type AuditAction, AuditLog } from "../audit/AuditLog.js"
import { Accounts } from "../identity/accounts/Accounts.js"
import { currentSession } from "../identity/Session.js"
import { AppConfig } from "../platform/Config.js"
import { clientIpOf } from "../platform/http/ClientIp.js"
import { declaredStatus } from "../platform/http/Errors.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { makeAccountForms, STALE_FORM, toSignIn } from "../storefront/AccountForms.js"
import { type StorePage, storePage } from "../storefront/Layout.js"
import { refusalPage } from "./Pages.js"

/** A signed-in account acting from the operator console. */
export interface ConsoleAccount {
  readonly userId: string
  readonly email: string
  readonly ip: string | null
}

/** The operator at the door: who, from where, and a fresh form token for the page. */
export interface Operator extends ConsoleAccount {
  readonly csrf: string
}

/** A refusal of a service or of the form: its message, and its status when it names one. */
export interface Refusal {
  readonly _tag: string
  readonly message: string
}

/** The status of the console's own refusals. */
const OWN_STATUS: Readonly<Record<string, number>> = { StaleForm: 403, NotFound: 404, BadInput: 400 }

/** A domain error's status (platform/http/Errors.ts `declaredStatus`), else the console's own. */
export const statusOf = (e: Refusal): number => declaredStatus(e) ?? OWN_STATUS[e._tag] ?? 400

/** The operator at the door, with the session the form tokens are bound to. */
interface Admitted extends Operator {
  readonly sessionId: string
}

/** A refusal answered as a form's error: 400 with the reason. */
export const badInput = (message: string): Refusal => ({ _tag: "BadInput", message })

/** A refusal answered 404: no such thing. */
export const notFound = (message: string): Refusal => ({ _tag: "NotFound", message })

export const makeDoor = Effect.gen(function*() {
  const accounts = yield* Accounts
  const audit = yield* AuditLog
  const config = yield* AppConfig
  const forms = makeAccountForms((yield* ServiceSecret).key("account-csrf"), config.baseUrl)

  const show = (p: StorePage, status = 200) => storePage(p, { status })
  const refused = (back: string) => (e: Refusal) =>
    Effect.succeed(show(refusalPage(statusOf(e) === 403 ? "Not allowed" : "Not done", e.message, back), statusOf(e)))

  /** The signed-in operator, or the answer for anyone else (303 to sign in, 403 page). */
  const admit = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      const session = yield* Effect.provideService(currentSession, Accounts, accounts)
      if (Option.isNone(session)) return Option.none<Admitted>()
      const account = yield* accounts.requireOperator(session.value.user.id)
      const csrf = forms.token({ sessionId: session.value.id }, yield* Clock.currentTimeMillis)
      return Option.some<Admitted>({
        userId: account.id,
        email: account.email,
        ip: clientIpOf(request, config.trustProxy),
        csrf,
        sessionId: session.value.id
      })
    })

  return {
    show,
    /** A GET: the operator's page, `here` for coming back after signing in. */
    page: <R>(
      here: string,
      request: HttpServerRequest.HttpServerRequest,
      f: (op: Operator) => Effect.Effect<StorePage, Refusal, R>
    ) =>
      Effect.gen(function*() {
        const op = yield* admit(request)
        if (Option.isNone(op)) return toSignIn(here)
        return show(yield* f(op.value))
      }).pipe(Effect.catchAll(refused("/ops"))),

    /** A form's post: the operator, the origin and the token, then `f` (its refusals as pages). */
    post: <R>(
      back: string,
      request: HttpServerRequest.HttpServerRequest,
      csrf: string | undefined,
      f: (op: Operator) => Effect.Effect<HttpServerResponse.HttpServerResponse, Refusal, R>
    ) =>
      Effect.gen(function*() {
        const op = yield* admit(request)
        if (Option.isNone(op)) return toSignIn(back)
        if (!(yield* forms.accepts(request, csrf, { sessionId: op.value.sessionId }))) {
          return yield* Effect.fail<Refusal>({ _tag: "StaleForm", message: STALE_FORM })
        }
        return yield* f(op.value)
      }).pipe(Effect.catchAll(refused(back))),

    /** A state-changing call of a service, recorded in the audit log as the operator's. */
    act: <A, E, R, E2 = never, R2 = never>(
      op: Operator,
      what: AuditAction<A, E2, R2>,
      effect: Effect.Effect<A, E, R>
    ) =>
      // The role is read again inside the action: one revoked a moment ago records nothing.
      Effect.flatMap(
        accounts.requireOperator(op.userId),
        (operator) => audit.audited({ actor: operator.email, ip: op.ip }, what, effect)
      )
  }
})
