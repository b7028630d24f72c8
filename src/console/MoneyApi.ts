/**
 * The partner console's money section (docs/consoles.md#money): the partner's statements, its
 * sales history (paged, with its totals) and payouts, through the reads of the signed API's
 * `GET /settlements`, `GET /transactions` and `GET /payouts`; and the sales history as CSV, the
 * text of `GET /api/partner/v1/transactions.csv`, served to the signed-in member (same origin, the
 * session's cookie: no signing key needed).
 *
 *   GET /console/money                     statements, sales history (filters, page cursor), payouts
 *   GET /console/money/transactions.csv    every sale matching the page's filters, as a download
 *   GET /console/money/statements/{id}.csv one statement's lines (`GET /api/partner/v1/settlements/{id}.csv`)
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { CsvText } from "../partner/ledger/Api.js"
import { documentedAt, htmlErrorPages, HtmlPage, Redirect } from "../platform/http/ApiAnnotations.js"
import { InternalError } from "../platform/http/Errors.js"
import { PartnerParam } from "./Api.js"
import { listPage, ListParams, WindowParams } from "./OrderApi.js"

const text = (description: string) => Schema.optional(Schema.String).annotations({ description })

const SalesFilters = {
  status: text("An order status (PENDING_TRANSFER, SETTLED, …)"),
  payment_model: text("partner_collected, hosted_checkout, referral or brokerage"),
  ...WindowParams
}

export const MoneyParams = Schema.Struct({ ...ListParams, ...SalesFilters })

export const CsvParams = Schema.Struct({ ...PartnerParam.fields, environment: ListParams.environment, ...SalesFilters })

export class ConsoleMoneyPagesApi extends HttpApiGroup.make("consoleMoneyPages")
  .add(
    listPage("moneyPage", "/console/money", {
      summary: "The partner's statements, sales history and payouts",
      description:
        "The partner's settlement statements and payouts (latest 20), and its sales history with totals, filtered by status, payment model and window, with a `Next page` link and a CSV download",
      anchor: "money"
    }).setUrlParams(MoneyParams)
  )
  .add(
    HttpApiEndpoint.get("transactionsCsv", "/console/money/transactions.csv")
      .setUrlParams(CsvParams)
      .addSuccess(CsvText)
      .addSuccess(Redirect("Not signed in: to /signin?next=<this page>"))
      .addError(HtmlPage(400, "A filter or environment the export cannot use"))
      .addError(HtmlPage(404, "No such partner of the signed-in person's"))
      .annotateContext(htmlErrorPages(
        "A filter or environment the export cannot use (the page names it), or the typed 400 for an undecodable query string"
      ))
      .annotate(OpenApi.Summary, "The sales history as a CSV download (sign-in required)")
      .annotate(
        OpenApi.Description,
        "Every sale matching the money page's filters, as `GET /api/partner/v1/transactions.csv` writes it, with `Content-Disposition: attachment`. Any member of the partner may download it; membership is checked by the partner services."
      )
      .pipe(documentedAt("/docs/consoles.md#money"))
  )
  .add(
    HttpApiEndpoint.get("statementCsv")`/console/money/statements/${HttpApiSchema.param("id", Schema.String)}.csv`
      .setUrlParams(Schema.Struct({ ...PartnerParam.fields, environment: ListParams.environment }))
      .addSuccess(CsvText)
      .addSuccess(Redirect("Not signed in: to /signin?next=<this page>"))
      .addError(HtmlPage(400, "An environment the partner was not granted"))
      .addError(HtmlPage(404, "No such partner of the signed-in person's, or no such statement of that partner's"))
      .annotateContext(htmlErrorPages("An environment the partner was not granted (the page names it)"))
      .annotate(OpenApi.Summary, "One statement's lines as a CSV download (sign-in required)")
      .annotate(
        OpenApi.Description,
        "The statement's lines as `GET /api/partner/v1/settlements/{id}.csv` writes them, with `Content-Disposition: attachment`. Any member of the partner may download it; another partner's statement is not found."
      )
      .pipe(documentedAt("/docs/consoles.md#money"))
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner console: money")
  .annotate(
    OpenApi.Description,
    "A partner's statements, sales history and payouts, for its signed-in people (HTML, CSV)"
  )
{}
