/**
 * The partner console's business pages (docs/consoles.md#orders): what the partner sold, through
 * the same services as the signed API's `GET /orders`, `GET /checkout-session/{id}` and
 * `GET /brokerage`, for any member (every role may look). Sign-in as in ./Api.ts; the partner
 * services check membership on every read, so another partner's page is the 404 page.
 *
 *   GET /console/orders               orders, newest first; filters and the page cursor in the URL
 *   GET /console/checkout-sessions    hosted checkout sessions with their status and expiry
 *   GET /console/brokerage            brokerage cases, newest first
 *   GET /console/brokerage/{id}       one case with its timeline
 *
 * Every filter is a plain string here and read by the handler (./Lists.ts): a value the page cannot
 * use is a 400 page naming the field. The money section is its own group: ./MoneyApi.ts.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt, htmlErrorPages, HtmlPage, Redirect } from "../platform/http/ApiAnnotations.js"
import { InternalError } from "../platform/http/Errors.js"
import { PartnerParam } from "./Api.js"

const text = (description: string) => Schema.optional(Schema.String).annotations({ description })

/** The URL of every business page: the partner, the environment, a page of rows. */
export const ListParams = {
  ...PartnerParam.fields,
  environment: text("sandbox or live; default live once the partner has a live key, else sandbox"),
  limit: text("Rows per page, 1–100 (default 25)"),
  cursor: text("The `Next page` link carries it")
}

export const WindowParams = {
  from: text("Created at or after (RFC 3339 or YYYY-MM-DD)"),
  to: text("Created before (RFC 3339 or YYYY-MM-DD)")
}

export const OrderParams = Schema.Struct({
  ...ListParams,
  status: text("An order status (PENDING_TRANSFER, SETTLED, …)"),
  payment_model: text("partner_collected, hosted_checkout, referral or brokerage"),
  domain: text("One domain name (its orders only)"),
  ...WindowParams
})

export const CaseParams = Schema.Struct({ ...ListParams, status: text("A case status (new, …)"), ...WindowParams })

const htmlErrors = htmlErrorPages(
  "A filter, environment or cursor the page cannot use (the page names it), or the typed 400 for an undecodable query string"
)

const REDIRECT = Redirect("Not signed in: to /signin?next=<this page>")
const BAD_QUERY = HtmlPage(400, "A filter, environment or cursor the page cannot use")
const NOT_FOUND = HtmlPage(404, "No such partner (or case) of the signed-in person's")
const described = (description: string) =>
  `${description}. Any member of the partner may look; membership is checked by the partner services.`

/** A business list page: HTML for a member, the sign-in redirect, the 400 and 404 pages (its URL set by the caller). */
export const listPage = <Name extends string>(
  name: Name,
  path: `/${string}`,
  v: { readonly summary: string; readonly description: string; readonly anchor: string }
) =>
  HttpApiEndpoint.get(name, path)
    .addSuccess(HtmlPage(200, v.description))
    .addSuccess(REDIRECT)
    .addError(BAD_QUERY)
    .addError(NOT_FOUND)
    .annotateContext(htmlErrors)
    .annotate(OpenApi.Summary, `${v.summary} (sign-in required)`)
    .annotate(OpenApi.Description, described(v.description))
    .pipe(documentedAt(`/docs/consoles.md#${v.anchor}`))

const CaseId = HttpApiSchema.param("id", Schema.String.annotations({ description: "brk_…" }))

export class ConsoleOrderPagesApi extends HttpApiGroup.make("consoleOrderPages")
  .add(
    listPage("ordersPage", "/console/orders", {
      summary: "The partner's orders, newest first",
      description:
        "The partner's orders in one environment, newest first, filtered by status, payment model, domain and creation window, with a `Next page` link",
      anchor: "orders"
    }).setUrlParams(OrderParams)
  )
  .add(
    listPage("checkoutSessionsPage", "/console/checkout-sessions", {
      summary: "The partner's checkout sessions",
      description:
        "The partner's hosted checkout sessions in one environment, newest first, with their status, price and expiry",
      anchor: "checkout-sessions"
    }).setUrlParams(Schema.Struct(ListParams))
  )
  .add(
    listPage("brokeragePage", "/console/brokerage", {
      summary: "The partner's brokerage cases",
      description:
        "The partner's brokerage cases in one environment, newest first, filtered by status and creation window",
      anchor: "brokerage"
    }).setUrlParams(CaseParams)
  )
  .add(
    HttpApiEndpoint.get("brokerageCasePage")`/console/brokerage/${CaseId}`
      .setUrlParams(Schema.Struct({ ...PartnerParam.fields, environment: ListParams.environment }))
      .addSuccess(HtmlPage(200, "One of the partner's brokerage cases: its figures and the timeline of every step"))
      .addSuccess(REDIRECT)
      .addError(BAD_QUERY)
      .addError(NOT_FOUND)
      .annotateContext(htmlErrors)
      .annotate(OpenApi.Summary, "One brokerage case with its timeline (sign-in required)")
      .annotate(OpenApi.Description, described("One of the partner's brokerage cases, with the timeline of every step"))
      .pipe(documentedAt("/docs/consoles.md#brokerage"))
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner console: orders and brokerage")
  .annotate(
    OpenApi.Description,
    "A partner's orders, checkout sessions and brokerage cases, for its signed-in people (HTML)"
  )
{}
