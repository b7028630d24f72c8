/**
 * The partner console's referral links and analytics (docs/consoles.md#links,
 * docs/consoles.md#analytics): HTML pages over the Referrals service the signed API uses, through
 * the console's door (./Door.ts): sign-in, same-origin and CSRF on the post, membership and role
 * checked by the service adapter (referrals/MemberReferrals.ts).
 *
 *   GET  /console/links        the newest links with their URL, counts and QR code; the create form
 *   POST /console/links        create a link (owner, developer)
 *   GET  /console/analytics    the funnel by day over `from`–`to` (default the last 30 days), charted
 *
 * `partner` chooses among the person's partners, `environment` between the granted environments.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt, HtmlPage, Redirect } from "../platform/http/ApiAnnotations.js"
import { InternalError } from "../platform/http/Errors.js"
import { formPost, PartnerParam } from "./Api.js"

const field = Schema.optional(Schema.String)

const Environment = Schema.optional(Schema.String).annotations({
  description: "sandbox or live (of those granted); default the first granted"
})

export const LinkForm = Schema.Struct({
  kind: field,
  domain: field,
  product: field,
  campaign: field,
  environment: field,
  partner: field,
  csrf: field
}).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

const Day = Schema.optional(Schema.String).annotations({
  description: "YYYY-MM-DD (UTC day), both ends included; default the last 30 days, at most 92 days"
})

export class ConsoleLinkPagesApi extends HttpApiGroup.make("consoleLinkPages")
  .add(
    HttpApiEndpoint.get("linksPage", "/console/links")
      .setUrlParams(Schema.Struct({ ...PartnerParam.fields, environment: Environment }))
      .addSuccess(HtmlPage(200, "The partner's newest referral links with their URL, counts and QR code"))
      .addSuccess(Redirect("Not signed in: to /signin?next=<this page>"))
      .addError(HtmlPage(404, "No such partner of the signed-in person's"))
      .annotate(OpenApi.Summary, "The partner's referral links, with a QR code each (sign-in required)")
      .annotate(
        OpenApi.Description,
        "The same links and counts as GET /api/partner/v1/links, for the partner's members. Membership and role are checked by the partner services."
      )
      .pipe(documentedAt("/docs/consoles.md#links"))
  )
  .add(
    formPost("createLinkPage", "/console/links", LinkForm, Redirect("Created: back to the links"))
      .annotate(OpenApi.Summary, "Create a referral link (owner, developer), checked as the API checks it")
      .pipe(documentedAt("/docs/consoles.md#links"))
  )
  .add(
    HttpApiEndpoint.get("analyticsPage", "/console/analytics")
      .setUrlParams(Schema.Struct({ ...PartnerParam.fields, environment: Environment, from: Day, to: Day }))
      .addSuccess(HtmlPage(200, "The referral funnel by day, charted, with the numbers"))
      .addSuccess(Redirect("Not signed in: to /signin?next=<this page>"))
      .addError(HtmlPage(400, "`from` or `to` is not a date, or the window is reversed or too long"))
      .addError(HtmlPage(404, "No such partner of the signed-in person's"))
      .annotate(OpenApi.Summary, "The partner's referral analytics, charted by day (sign-in required)")
      .annotate(
        OpenApi.Description,
        "Clicks, unique clicks, checkouts started, sales, GMV and commission by UTC day, as GET /api/partner/v1/analytics reports them, drawn as SVG charts. Membership and role are checked by the partner services."
      )
      .pipe(documentedAt("/docs/consoles.md#analytics"))
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner console: links and analytics")
  .annotate(OpenApi.Description, "A partner's referral links and their analytics, for its signed-in people (HTML)")
{}
