/**
 * Handlers of the account pages: the same-origin check and the form's token, then one call of the
 * owning service (Accounts for sign-in and sign-up, Portfolio and Bulk for the rest) → the page.
 * Each answers HTML or a 303, whatever goes wrong with the input; the services check ownership.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Either, Layer, Option } from "effect"
import { Api } from "../app/Api.js"
import { Accounts } from "../identity/accounts/Accounts.js"
import { limitLogin } from "../identity/accounts/LoginLimit.js"
import { clearSessionCookie, currentSession, sessionTokenOf, setSessionCookie } from "../identity/Session.js"
import { AppConfig } from "../platform/Config.js"
import { seeOther } from "../platform/http/Html.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { BulkAccepted, BulkCart, BulkRequest } from "../portfolio/Api.js"
import { Bulk } from "../portfolio/Bulk.js"
import { Portfolio } from "../portfolio/Portfolio.js"
import { ACCOUNT_PATH, makeAccountForms, safeNext, STALE_FORM, toSignIn } from "./AccountForms.js"
import {
  accountNotFoundPage,
  accountPage,
  cartPage,
  type CredentialsFormInput,
  jobPage,
  PAGE_OPS,
  type PageOp,
  signInPage,
  signUpPage
} from "./AccountPages.js"
import { BulkIsland } from "./Island.js"
import { type StorePage, storePage } from "./Layout.js"

const first = (v: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  v === undefined ? [] : typeof v === "string" ? [v] : v

/** How each refusal of the bulk service is answered on the page. */
const BULK_REFUSAL_STATUS: Readonly<Record<string, number>> = {
  InvalidBulkPayload: 400,
  InvalidBulkDomains: 400,
  DomainsNotOwned: 403,
  PriceUnavailable: 422,
  ItemsRefused: 422,
  RegistrarUnavailable: 503,
  CheckoutUnavailable: 503
}

/** The bulk service's request for a page action (auto-renew on/off are two actions of one op). */
const bulkRequestOf = (
  op: PageOp,
  domains: ReadonlyArray<string>,
  form: { readonly nameservers?: string | undefined; readonly years?: string | undefined }
) => {
  const payload = op === "setNameservers"
    ? { nameservers: (form.nameservers ?? "").split(/[\s,]+/).filter((n) => n !== "") }
    : op === "autoRenewOn" || op === "autoRenewOff"
    ? { autoRenew: op === "autoRenewOn" }
    : op === "renew"
    ? { years: Number(form.years ?? "1") }
    : {}
  const apiOp = op === "autoRenewOn" || op === "autoRenewOff" ? "setAutoRenew" as const : op
  return { op: apiOp, request: new BulkRequest({ domains, payload }) }
}

export const AccountHttpLive = HttpApiBuilder.group(Api, "accountPages", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const portfolio = yield* Portfolio
    const bulk = yield* Bulk
    const island = yield* BulkIsland
    const config = yield* AppConfig
    const forms = makeAccountForms((yield* ServiceSecret).key("account-csrf"), config.baseUrl)
    const now = Clock.currentTimeMillis

    const credentialsForm = (purpose: "signin" | "signup", next: string, extra: Partial<CredentialsFormInput> = {}) =>
      Effect.map(now, (at): CredentialsFormInput => ({ csrf: forms.token(purpose, at), next, ...extra }))
    const formPage = (purpose: "signin" | "signup", form: CredentialsFormInput, status = 200) =>
      storePage(purpose === "signin" ? signInPage(form) : signUpPage(form), { status })

    /** Refusals common to both forms: a post from another site, or a stale token (403, the form again). */
    const refusedForm = (
      purpose: "signin" | "signup",
      request: HttpServerRequest.HttpServerRequest,
      payload: { readonly csrf?: string | undefined; readonly email?: string | undefined },
      next: string
    ) =>
      Effect.gen(function*() {
        if (yield* forms.accepts(request, payload.csrf, purpose)) return Option.none()
        const form = yield* credentialsForm(purpose, next, {
          email: (payload.email ?? "").slice(0, 254),
          error: "This form was out of date or sent from another site. Please try again."
        })
        return Option.some(formPage(purpose, form, 403))
      })

    /** Starts a new session (the previous one, if any, ends: no session survives a sign-in). */
    const startSession = (request: HttpServerRequest.HttpServerRequest, email: string, password: string) =>
      Effect.gen(function*() {
        const signedIn = yield* accounts.signIn(email, password)
        const previous = sessionTokenOf(request)
        if (previous !== undefined) yield* accounts.endSession(previous)
        yield* setSessionCookie(signedIn.token, signedIn.expiresAt)
      })

    /** The signed-in person and their session, or the 303 to sign in and come back to `here`. */
    const withSession = <E, R>(
      here: string,
      f: (
        session: { readonly id: string; readonly user: { readonly id: string; readonly email: string } }
      ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.flatMap(currentSession, (session) =>
        Option.isNone(session) ? Effect.succeed(toSignIn(here)) : f(session.value))

    const accountView = (
      session: { readonly id: string; readonly user: { readonly id: string; readonly email: string } },
      message: { readonly error?: string; readonly notice?: string } = {}
    ) =>
      Effect.gen(function*() {
        const [list, recent, at] = yield* Effect.all([
          portfolio.list(session.user.id),
          bulk.recent(session.user.id),
          now
        ])
        return accountPage({
          email: session.user.email,
          csrf: forms.token({ sessionId: session.id }, at),
          portfolio: list,
          jobs: recent.jobs,
          carts: recent.carts,
          ...message
        })
      })

    const page = (p: StorePage, status = 200, script?: string) =>
      storePage(p, { status, script })

    return handlers
      .handle("signInPage", ({ urlParams }) =>
        Effect.gen(function*() {
          const next = safeNext(urlParams.next)
          if (Option.isSome(yield* currentSession)) return seeOther(next)
          return formPage("signin", yield* credentialsForm("signin", next))
        }))
      .handle("signIn", ({ payload, request }) =>
        Effect.gen(function*() {
          const next = safeNext(payload.next)
          const refused = yield* refusedForm("signin", request, payload, next)
          if (Option.isSome(refused)) return refused.value
          const email = (payload.email ?? "").trim().slice(0, 254)
          const again = (error: string, status: number) =>
            Effect.map(credentialsForm("signin", next, { email, error }), (f) => formPage("signin", f, status))
          if (email === "" || (payload.password ?? "") === "") {
            return yield* again("Enter your e-mail and password.", 400)
          }
          const limited = yield* Effect.either(limitLogin(email))
          if (Either.isLeft(limited)) return yield* again(`Too many sign-in attempts. ${limited.left.message}.`, 429)
          const started = yield* Effect.either(startSession(request, email, payload.password ?? ""))
          if (Either.isLeft(started)) return yield* again("Wrong e-mail or password.", 401)
          return seeOther(next)
        }))
      .handle("signUpPage", ({ urlParams }) =>
        Effect.gen(function*() {
          const next = safeNext(urlParams.next)
          if (Option.isSome(yield* currentSession)) return seeOther(next)
          return formPage("signup", yield* credentialsForm("signup", next))
        }))
      .handle("signUp", ({ payload, request }) =>
        Effect.gen(function*() {
          const next = safeNext(payload.next)
          const refused = yield* refusedForm("signup", request, payload, next)
          if (Option.isSome(refused)) return refused.value
          const email = (payload.email ?? "").trim().slice(0, 254)
          const password = payload.password ?? ""
          const again = (error: string) =>
            Effect.map(credentialsForm("signup", next, { email, error }), (f) => formPage("signup", f, 400))
          const created = yield* Effect.either(accounts.createUser({ email, password }))
          if (Either.isLeft(created)) {
            const e = created.left
            return yield* again(
              e._tag === "EmailTaken"
                ? "An account with this e-mail already exists. Sign in instead, or use another address."
                : e._tag === "WeakPassword"
                ? "Choose a password of at least 8 characters."
                : e._tag === "InvalidEmail"
                ? "Enter an e-mail address, for example you@example.com."
                : e.message
            )
          }
          yield* Effect.orDie(startSession(request, email, password))
          return seeOther(next)
        }))
      .handle("signOut", ({ payload, request }) =>
        Effect.gen(function*() {
          const session = yield* currentSession
          if (Option.isNone(session)) {
            yield* clearSessionCookie
            return seeOther("/")
          }
          if (!(yield* forms.accepts(request, payload.csrf, { sessionId: session.value.id }))) {
            return page(
              yield* accountView(session.value, { error: "That form was out of date. Please try again." }),
              403
            )
          }
          yield* accounts.endSession(sessionTokenOf(request) ?? "")
          yield* clearSessionCookie
          return seeOther("/")
        }))
      .handle("accountPage", () => withSession(ACCOUNT_PATH, (session) => Effect.map(accountView(session), page)))
      .handle("bulkAction", ({ payload, request }) =>
        withSession(ACCOUNT_PATH, (session) =>
          Effect.gen(function*() {
            const refuse = (error: string, status: number) =>
              Effect.map(accountView(session, { error }), (p) => page(p, status))
            if (!(yield* forms.accepts(request, payload.csrf, { sessionId: session.id }))) {
              return yield* refuse(STALE_FORM, 403)
            }
            const op = (PAGE_OPS as ReadonlyArray<string>).find((o) => o === payload.op) as PageOp | undefined
            if (op === undefined) return yield* refuse("Choose an action.", 400)
            const domains = first(payload.domain).slice(0, 1000)
            if (domains.length === 0) return yield* refuse("Tick at least one name.", 400)
            const call = bulkRequestOf(op, domains, payload)
            const done = yield* Effect.either(bulk.bulk(session.user, call.op, call.request))
            if (Either.isLeft(done)) {
              return yield* refuse(done.left.message, BULK_REFUSAL_STATUS[done.left._tag] ?? 400)
            }
            const r = done.right
            if (r instanceof BulkAccepted && r.bulkOpId !== null) {
              return seeOther(`/account/jobs/${encodeURIComponent(r.bulkOpId)}`)
            }
            if (r instanceof BulkCart && r.checkoutPath !== null) return seeOther(r.checkoutPath)
            const failed = "failed" in r && r.failed !== undefined ? r.failed.length : 0
            return page(
              yield* accountView(session, {
                notice: `Auto-renew turned ${op === "autoRenewOn" ? "on" : "off"} for ${"count" in r ? r.count : 0} ${
                  "count" in r && r.count === 1 ? "name" : "names"
                }${failed > 0 ? `; ${failed} could not be changed` : ""}.`
              })
            )
          })))
      .handle("jobPage", ({ path }) =>
        withSession(`/account/jobs/${encodeURIComponent(path.id)}`, (session) =>
          Effect.gen(function*() {
            const job = yield* Effect.either(bulk.status(path.id, session.user.id))
            if (Either.isLeft(job)) {
              return page(accountNotFoundPage("job"), 404)
            }
            return page(jobPage(job.right), 200, job.right.status === "done" ? undefined : yield* island.src)
          })))
      .handle("cartPage", ({ path }) =>
        withSession(`/account/carts/${encodeURIComponent(path.id)}`, (session) =>
          Effect.map(
            Effect.either(bulk.cart(path.id, session.user.id)),
            Either.match({
              onLeft: () =>
                page(accountNotFoundPage("cart"), 404),
              onRight: (cart) =>
                page(cartPage(cart))
            })
          )))
  })).pipe(Layer.provide(BulkIsland.Default))
