/**
 * The account pages of the storefront (docs/storefront.md#account): HTML, same origin, no
 * JavaScript needed; every form posts with a CSRF token and passes the same-origin check.
 *
 *   GET  /signin?next=…      the sign-in form          POST /signin   signs in, 303 to `next` (a path of this site only)
 *   GET  /signup?next=…      the sign-up form          POST /signup   creates the account (as `user create`), signed in
 *   POST /signout            ends the session, 303 to /
 *   GET  /account            portfolio, bulk actions, jobs and carts (anonymous: 303 to /signin?next=/account)
 *   POST /account/bulk       one bulk action on the ticked names (the portfolio's Bulk service)
 *   GET  /account/jobs/{id}  a bulk job's progress (live with the island, refreshing without it)
 *   GET  /account/carts/{id} a renew/restore cart and each item's outcome
 *
 * Ownership is the services' (Bulk.status, Bulk.cart, Bulk.recent take the owner): another
 * person's job or cart is the 404 page.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { loginLimits } from "../identity/accounts/Api.js"
import { documentedAt, HtmlPage, rateLimited, Redirect } from "../platform/http/ApiAnnotations.js"
import { InternalError } from "../platform/http/Errors.js"
import { waitRefused } from "./Refusals.js"

export const NextParam = Schema.Struct({
  next: Schema.optional(Schema.String).annotations({
    description: "Where to go once signed in: a path of this site (anything else goes to /account)"
  })
})

export const CredentialsForm = Schema.Struct({
  email: Schema.optional(Schema.String),
  password: Schema.optional(Schema.String),
  next: Schema.optional(Schema.String),
  csrf: Schema.optional(Schema.String)
}).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

export const SignOutForm = Schema.Struct({ csrf: Schema.optional(Schema.String) }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)

const BulkFormFields = Schema.Struct({
  op: Schema.optional(Schema.String),
  domain: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))).annotations({
    description: "Each ticked name (the field repeated)"
  }),
  nameservers: Schema.optional(Schema.String).annotations({ description: "Host names, separated by spaces or commas" }),
  years: Schema.optional(Schema.String),
  csrf: Schema.optional(Schema.String)
})

/**
 * seam: a form body is decoded from `UrlParams.toRecord`, which gives a repeated field (the ticked
 * names) as an array; `withEncoding`'s type check knows only single strings, so it is told so.
 */
export const BulkForm = (BulkFormFields as unknown as Schema.Schema<
  typeof BulkFormFields.Type,
  Readonly<Record<string, string | undefined>>
>).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

const IdSegment = (name: string, example: string) =>
  HttpApiSchema.param(name, Schema.String.annotations({ description: example }))

export class AccountPagesApi extends HttpApiGroup.make("accountPages")
  .add(
    HttpApiEndpoint.get("signInPage", "/signin")
      .setUrlParams(NextParam)
      .addSuccess(HtmlPage(200, "The sign-in form"))
      .annotate(OpenApi.Summary, "Sign-in page")
      .annotate(
        OpenApi.Description,
        "The sign-in form (HTML) with its form token; `next` (a path of this site, anything else is ignored) is where a successful sign-in goes."
      )
      .pipe(documentedAt("/docs/storefront.md#account"))
  )
  .add(
    HttpApiEndpoint.post("signIn", "/signin")
      .setPayload(CredentialsForm)
      .addSuccess(Redirect("Signed in (session cookie set, a new session): to `next` or /account"))
      .addError(HtmlPage(401, "Wrong e-mail or password: the form again"))
      .addError(HtmlPage(403, "A missing or stale form token, or a post from another site"))
      .addError(HtmlPage(429, "Too many attempts: the form again (Retry-After)"))
      .annotate(OpenApi.Summary, "The sign-in form's post")
      .annotate(
        OpenApi.Description,
        "The same accounts and sessions as POST /api/auth/login, counted against the same limits (per IP and per account)."
      )
      .pipe(rateLimited(loginLimits.ip, { enforcedBy: "service" }), documentedAt("/docs/storefront.md#account"))
  )
  .add(
    HttpApiEndpoint.get("signUpPage", "/signup")
      .setUrlParams(NextParam)
      .addSuccess(HtmlPage(200, "The sign-up form"))
      .annotate(OpenApi.Summary, "Sign-up page")
      .annotate(
        OpenApi.Description,
        "The sign-up form (HTML): e-mail and password; `next` as on the sign-in page."
      )
      .pipe(documentedAt("/docs/storefront.md#account"))
  )
  .add(
    HttpApiEndpoint.post("signUp", "/signup")
      .setPayload(CredentialsForm)
      .addSuccess(Redirect("Account created and signed in: to `next` or /account"))
      .addError(HtmlPage(400, "A bad e-mail or short password, or an e-mail already taken: the form again"))
      .addError(HtmlPage(403, "A missing or stale form token, or a post from another site"))
      .addError(HtmlPage(429, "Too many attempts from this address: a wait page (Retry-After)"))
      .annotate(OpenApi.Summary, "The sign-up form's post")
      .annotate(
        OpenApi.Description,
        "Creates the account as `user create` does, then signs in; counts against the sign-in limit per IP (`auth_login`)."
      )
      .pipe(rateLimited(loginLimits.ip, { refusal: waitRefused }), documentedAt("/docs/storefront.md#account"))
  )
  .add(
    HttpApiEndpoint.post("signOut", "/signout")
      .setPayload(SignOutForm)
      .addSuccess(Redirect("Signed out (session ended, cookie expired): to /"))
      .addError(HtmlPage(403, "A missing or stale form token, or a post from another site"))
      .annotate(OpenApi.Summary, "The sign-out button")
      .annotate(
        OpenApi.Description,
        "Ends the session (as POST /api/auth/logout) and expires its cookie; the form token is bound to the session."
      )
      .pipe(documentedAt("/docs/storefront.md#account"))
  )
  .add(
    HttpApiEndpoint.get("accountPage", "/account")
      .addSuccess(HtmlPage(200, "The portfolio with its bulk actions, the latest jobs and carts"))
      .addSuccess(Redirect("Not signed in: to /signin?next=/account"))
      .annotate(OpenApi.Summary, "The account page (sign-in required)")
      .annotate(
        OpenApi.Description,
        "The signed-in person's names (as GET /api/domains) with the bulk actions, and their latest bulk jobs and carts; anonymous → 303 to /signin?next=/account."
      )
      .pipe(documentedAt("/docs/storefront.md#account"))
  )
  .add(
    HttpApiEndpoint.post("bulkAction", "/account/bulk")
      .setPayload(BulkForm)
      .addSuccess(Redirect("A job: to its progress page; renew/restore: to the cart's hosted checkout"))
      .addError(HtmlPage(400, "Nothing ticked, or the action refused: the account page with the reason"))
      .addError(HtmlPage(403, "A missing or stale form token, or a post from another site"))
      .annotate(OpenApi.Summary, "A bulk action of the account page")
      .annotate(OpenApi.Description, "The same operation as POST /api/domains/bulk/{op}, on the ticked names.")
      .pipe(documentedAt("/docs/storefront.md#account"))
  )
  .add(
    HttpApiEndpoint.get("jobPage")`/account/jobs/${IdSegment("id", "bulk_…")}`
      .addSuccess(HtmlPage(200, "The job's items and counts; live with the island, refreshing without it"))
      .addError(HtmlPage(404, "No such job of this person's"))
      .annotate(OpenApi.Summary, "A bulk job's progress (sign-in required)")
      .annotate(
        OpenApi.Description,
        "The job of GET /api/domains/bulk/{bulkOpId} as a page, updated live by its island; another person's job is a 404."
      )
      .pipe(documentedAt("/docs/storefront.md#account"))
  )
  .add(
    HttpApiEndpoint.get("cartPage")`/account/carts/${IdSegment("id", "cart_…")}`
      .addSuccess(HtmlPage(200, "The cart's items, each with its amount and outcome"))
      .addError(HtmlPage(404, "No such cart of this person's"))
      .annotate(OpenApi.Summary, "A renew/restore cart (sign-in required)")
      .annotate(
        OpenApi.Description,
        "The cart of GET /api/carts/{cartId} as a page, each item with its outcome; another person's cart is a 404."
      )
      .pipe(documentedAt("/docs/storefront.md#account"))
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Account pages")
  .annotate(OpenApi.Description, "Sign in, sign up, and the signed-in person's portfolio, jobs and carts (HTML)")
{}
