/**
 * The account pages' form rules (docs/storefront.md#account): where a sign-in may send the person
 * next, and the CSRF token of each form.
 *
 * Contract: `next` is only ever a path of this site (`/…`, never `//host`, `/\host`, a scheme or
 * a control character), so signing in can never redirect elsewhere (no open redirect). A form's
 * token is the one mechanism of the buy and offer forms (checkout/BuyForm.ts: issue time + HMAC
 * under a SERVICE_SECRET key of its own), bound to what the form is for: `signin`/`signup` before
 * there is a session, the session's id after (sign-out, bulk actions), so a token from another
 * session or another form is refused. Every post also passes the same-origin check.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Clock, Effect } from "effect"
import { makeBuyForm } from "../checkout/BuyForm.js"
import { isSameOriginWrite } from "../identity/Session.js"
import { seeOther } from "../platform/http/Html.js"

export const ACCOUNT_PATH = "/account"

/** `/signin?next=/account` (CONTRACT): slashes stay readable, everything else is escaped. */
export const toSignIn = (next: string) => seeOther(`/signin?next=${encodeURIComponent(next).replace(/%2F/g, "/")}`)

/** `next` when it is a path of this site, else the account page. */
export const safeNext = (next: string | undefined): string => {
  if (next === undefined || next.length > 512) return ACCOUNT_PATH
  // One leading slash, then no second slash or backslash (protocol-relative `//evil`, `/\evil`),
  // and nothing a browser would strip or reinterpret (controls, spaces).
  if (!/^\/(?![/\\])[^\s\\\u0000-\u001f\u007f]*$/.test(next)) return ACCOUNT_PATH
  const url = new URL(next, "http://account.invalid")
  return url.origin === "http://account.invalid" ? `${url.pathname}${url.search}${url.hash}` : ACCOUNT_PATH
}

/** What a signed-in page says when `accepts` refuses its post (403). */
export const STALE_FORM = "That form was out of date or sent from another site. Please try again."

/** What a form token is bound to. */
export type FormPurpose = "signin" | "signup" | { readonly sessionId: string }

const subjectOf = (purpose: FormPurpose) => typeof purpose === "string" ? purpose : `session:${purpose.sessionId}`

/**
 * The account forms' tokens under `key` (ServiceSecret `account-csrf`), and the one rule of a
 * signed-in page's post (account, partner console, operator console): `accepts` it only from this
 * site (`baseUrl`) with a valid token for `purpose`.
 */
export const makeAccountForms = (key: Buffer, baseUrl: string) => {
  const forms = makeBuyForm(key)
  const valid = (token: string | undefined, purpose: FormPurpose, now: number) =>
    forms.valid(token, "live", subjectOf(purpose), now)
  return {
    token: (purpose: FormPurpose, now: number) => forms.token("live", subjectOf(purpose), now),
    valid,
    accepts: (request: HttpServerRequest.HttpServerRequest, token: string | undefined, purpose: FormPurpose) =>
      Effect.map(
        Clock.currentTimeMillis,
        (now) => isSameOriginWrite(request, baseUrl) && valid(token, purpose, now)
      )
  }
}
