/**
 * The operator console's pages (docs/consoles.md#operator-console): HTML, same origin, signed in
 * with the storefront's accounts; only accounts whose role is `operator` (identity/accounts) get
 * past the door. Anonymous → 303 to /signin?next=…; another account → a 403 page. Every form posts
 * with a CSRF token bound to the session and passes the same-origin check; every action goes
 * through the same services as the admin API and the CLI and is recorded in the audit log with the
 * account's e-mail and the client's IP (ops/Door.ts `act`).
 *
 *   GET  /ops                          what waits for a person, counted
 *   GET  /ops/orders                   held orders (clear, refuse) and orders to transfer (start, hold)
 *   POST /ops/orders/move              one move of an order
 *   GET  /ops/brokerage                open brokerage cases
 *   POST /ops/brokerage/advance        the next step (price and note)
 *   POST /ops/brokerage/close          close: won (with the deal price), lost or cancelled
 *   GET  /ops/offers                   pending offers from the storefront
 *   POST /ops/offers/decide            accept, counter (with an amount) or decline
 *   GET  /ops/deliveries               failed deliveries
 *   POST /ops/deliveries/retry         run the delivery again
 *   POST /ops/deliveries/mark-delivered the name was delivered by hand
 *   GET  /ops/carts                    cart items whose renew or restore failed after payment (?cursor)
 *   GET  /ops/money                    statements, settlement and payout runs, payouts (?cursor), receipts
 *   POST /ops/money/settle             a settlement run now: its result
 *   POST /ops/money/payouts            a payout run now: its result
 *   GET  /ops/money/verify             `ledger verify`: its report
 *   POST /ops/money/receipts           a partner's payment (ledger receipt): its result
 *   /ops/partners…                     partners: ./PartnerApi.ts
 *   GET  /ops/audit                    the audit log (?actor, ?action, ?since, ?cursor)
 *
 * Form fields are optional strings: the handler checks them and answers a 400 page with the reason
 * (never the JSON 400 of a schema), so a person always sees a page. So are the lists' URL values;
 * the `Older →` links carry the house page cursor (platform/http/PageCursor.ts), and one the list
 * did not issue is a 400 page too.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt, HtmlPage, Redirect } from "../platform/http/ApiAnnotations.js"
import { InternalError } from "../platform/http/Errors.js"

const field = Schema.optional(Schema.String)
const csrf = field

export const OrderMoveForm = Schema.Struct({ order_id: field, action: field, note: field, csrf }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const CaseForm = Schema.Struct({ case_id: field, outcome: field, price_cents: field, note: field, csrf }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const OfferForm = Schema.Struct({ offer_id: field, decision: field, amount_cents: field, csrf }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const DeliveryForm = Schema.Struct({ order_id: field, note: field, csrf }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const RunForm = Schema.Struct({ csrf }).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))
export const ReceiptForm = Schema.Struct({
  partner_id: field,
  environment: field,
  amount_cents: field,
  reference: field,
  csrf
}).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

const cursor = Schema.optional(Schema.String).annotations({
  description: "The page cursor: the `Older →` link carries it (opaque; one this list did not issue is a 400 page)"
})

/** A list's URL: only the page cursor. */
export const ListQuery = Schema.Struct({ cursor })

export const AuditQuery = Schema.Struct({
  actor: Schema.optional(Schema.String).annotations({
    description: "Only this actor (an e-mail, a token's name, cli:…)"
  }),
  action: Schema.optional(Schema.String).annotations({ description: "Only this action (order.clear-review, …)" }),
  since: Schema.optional(Schema.String).annotations({ description: "Only entries at or after this ISO date-time" }),
  cursor
})

export const DOCS = "/docs/consoles.md#operator-console"

const SIGN_IN = Redirect("Not signed in: to /signin?next=<this page>")
const NOT_OPERATOR = HtmlPage(403, "The account has no operator role, or the form was stale or from another site")

export const page = <Name extends string>(name: Name, path: `/${string}`, description: string) =>
  HttpApiEndpoint.get(name, path)
    .addSuccess(HtmlPage(200, description))
    .addSuccess(SIGN_IN)
    .addError(NOT_OPERATOR)
    .annotate(OpenApi.Summary, `${description.split(",")[0]} (operators)`)
    .annotate(OpenApi.Description, `${description}. Operator accounts only (user create --role operator).`)
    .pipe(documentedAt(DOCS))

/** A paged list's page: its URL values (`urlParams`) read by the handler, one it cannot use a 400 page. */
export const listPage = <
  Name extends string,
  U extends Schema.Schema<any, Readonly<Record<string, string | undefined>>>
>(
  name: Name,
  path: `/${string}`,
  urlParams: U & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<U>,
  description: string,
  badQuery: string
) =>
  HttpApiEndpoint.get(name, path)
    .setUrlParams(urlParams)
    .addSuccess(HtmlPage(200, description))
    .addSuccess(SIGN_IN)
    .addError(HtmlPage(400, badQuery))
    .addError(NOT_OPERATOR)
    .annotate(OpenApi.Summary, `${description.split(",")[0]} (operators)`)
    .annotate(
      OpenApi.Description,
      `${description}. Newest first, paged by the \`Older →\` link. Operator accounts only (user create --role operator).`
    )
    .pipe(documentedAt(DOCS))

/** A console form's post with the refusals every form shares. */
export const formPost = <
  Name extends string,
  P extends Schema.Schema<any, Readonly<Record<string, string | undefined>>>
>(
  name: Name,
  path: `/${string}`,
  payload: P,
  success: Schema.Schema<any, any, never>,
  summary: string
) =>
  HttpApiEndpoint.post(name, path)
    .setPayload(payload)
    .addSuccess(success)
    .addSuccess(SIGN_IN)
    .addError(HtmlPage(400, "The form is incomplete or wrong: the page with the reason"))
    .addError(NOT_OPERATOR)
    .addError(HtmlPage(404, "No such order, case, offer, delivery or partner"))
    .addError(HtmlPage(409, "Not allowed from where it stands now (a move, a closed offer, …)"))
    .annotate(OpenApi.Summary, `${summary} (operators)`)
    .annotate(
      OpenApi.Description,
      "An operator console form's post (same origin, CSRF token bound to the session); the same service as the admin API and the CLI, recorded in the audit log."
    )
    .pipe(documentedAt(DOCS))

export const BACK = (where: string) => Redirect(`Done: back to ${where}`)

export class OpsPagesApi extends HttpApiGroup.make("opsPages")
  .add(page("opsHome", "/ops", "What waits for a person, counted, with the console's sections"))
  .add(page("opsOrders", "/ops/orders", "Held orders and orders to transfer, with their moves"))
  .add(formPost("moveOrder", "/ops/orders/move", OrderMoveForm, BACK("the orders"), "Move an order"))
  .add(page("opsBrokerage", "/ops/brokerage", "Open brokerage cases, with advance and close"))
  .add(formPost("advanceCase", "/ops/brokerage/advance", CaseForm, BACK("the cases"), "Advance a brokerage case"))
  .add(formPost("closeCase", "/ops/brokerage/close", CaseForm, BACK("the cases"), "Close a brokerage case"))
  .add(page("opsOffers", "/ops/offers", "Pending offers from the storefront, with accept, counter and decline"))
  .add(formPost("decideOffer", "/ops/offers/decide", OfferForm, BACK("the offers"), "Decide an offer"))
  .add(page("opsDeliveries", "/ops/deliveries", "Failed deliveries, with retry and mark delivered"))
  .add(formPost("retryDelivery", "/ops/deliveries/retry", DeliveryForm, BACK("the deliveries"), "Retry a delivery"))
  .add(
    formPost(
      "markDelivered",
      "/ops/deliveries/mark-delivered",
      DeliveryForm,
      BACK("the deliveries"),
      "Mark a delivery done by hand"
    )
  )
  .add(
    listPage(
      "opsCarts",
      "/ops/carts",
      ListQuery,
      "Cart items whose renew or restore failed after payment (refund under way or refunded), with what to do",
      "The cursor is not one this page gave"
    )
  )
  .add(
    listPage(
      "opsMoney",
      "/ops/money",
      ListQuery,
      "Settlement statements, settlement and payout runs, every partner's payouts, receipts",
      "The payouts' cursor is not one this page gave"
    )
  )
  .add(formPost("runSettlement", "/ops/money/settle", RunForm, HtmlPage(200, "The run's result"), "Run settlement"))
  .add(formPost("runPayouts", "/ops/money/payouts", RunForm, HtmlPage(200, "The run's result"), "Run payouts"))
  .add(page("opsVerify", "/ops/money/verify", "The ledger verification report (ledger verify)"))
  .add(
    formPost(
      "recordReceipt",
      "/ops/money/receipts",
      ReceiptForm,
      HtmlPage(201, "The receipt and what the partner still owes"),
      "Record a partner's payment"
    )
  )
  .add(
    listPage(
      "opsAudit",
      "/ops/audit",
      AuditQuery,
      "The audit log, filtered by actor, action and since (the filters in the URL), as `audit list` shows it",
      "`since` is not a date, or the cursor is not one this page gave for these filters"
    )
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Operator console pages")
  .annotate(OpenApi.Description, "Queues, money, partners and the audit log, for operator accounts (HTML)")
{}
