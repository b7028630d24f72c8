/**
 * The partner console's webhooks section (docs/consoles.md#webhooks): HTML pages over the webhooks
 * service the signed API uses, through the console's door (./Door.ts): sign-in, same-origin and
 * CSRF on every post, membership and role checked by the partner services.
 *
 *   GET  /console/webhooks              the endpoint and its state, the delivery log with attempts
 *   POST /console/webhooks              set or change the URL (a first endpoint's secret shown once)
 *   POST /console/webhooks/rotate       a new signing secret, shown once
 *   POST /console/webhooks/test         a signed webhook.test event, delivered like every other
 *   POST /console/webhooks/redeliver    one event queued again
 *   POST /console/webhooks/check        whether a received delivery's signatures match the secret
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

export const WebhookUrlForm = Schema.Struct({ url: field, environment: field, partner: field, csrf: field }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const WebhookForm = Schema.Struct({ environment: field, partner: field, csrf: field }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const RedeliverForm = Schema.Struct({ event_id: field, environment: field, partner: field, csrf: field }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)

export const CheckForm = Schema.Struct({
  body: field,
  x_service_signature: field,
  webhook_id: field,
  webhook_timestamp: field,
  webhook_signature: field,
  environment: field,
  partner: field,
  csrf: field
}).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

const Conflict = HtmlPage(409, "The endpoint was disabled by a 410 from the receiver: set the URL again first")

export class ConsoleWebhookPagesApi extends HttpApiGroup.make("consoleWebhookPages")
  .add(
    HttpApiEndpoint.get("webhooksPage", "/console/webhooks")
      .setUrlParams(Schema.Struct({
        ...PartnerParam.fields,
        environment: Schema.optional(Schema.String).annotations({
          description: "sandbox or live (of those granted); default the first granted"
        })
      }))
      .addSuccess(HtmlPage(200, "The webhook endpoint, its state and the delivery log with each attempt"))
      .addSuccess(Redirect("Not signed in: to /signin?next=<this page>"))
      .addError(HtmlPage(404, "No such partner of the signed-in person's"))
      .annotate(OpenApi.Summary, "The partner's webhook endpoint and delivery log (sign-in required)")
      .annotate(OpenApi.Description, "Membership and role are checked by the partner services; never the secret.")
      .pipe(documentedAt("/docs/consoles.md#webhooks"))
  )
  .add(
    formPost(
      "setWebhookUrl",
      "/console/webhooks",
      WebhookUrlForm,
      HtmlPage(201, "A first endpoint's secret, shown once")
    )
      .addSuccess(Redirect("Changed (the secret kept): back to the webhooks"))
      .annotate(OpenApi.Summary, "Set or change the webhook URL (owner, developer), checked as the API checks it")
      .pipe(documentedAt("/docs/consoles.md#webhooks"))
  )
  .add(
    formPost(
      "rotateWebhookSecret",
      "/console/webhooks/rotate",
      WebhookForm,
      HtmlPage(201, "The new secret, shown once")
    )
      .annotate(OpenApi.Summary, "Rotate the webhook signing secret (owner, developer)")
      .pipe(documentedAt("/docs/consoles.md#webhooks"))
  )
  .add(
    formPost("testWebhookPage", "/console/webhooks/test", WebhookForm, Redirect("Queued: back to the webhooks"))
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Send a signed webhook.test event (owner, developer)")
      .pipe(documentedAt("/docs/consoles.md#webhooks"))
  )
  .add(
    formPost("redeliverWebhookPage", "/console/webhooks/redeliver", RedeliverForm, Redirect("Queued: back"))
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Redeliver one event (owner, developer)")
      .pipe(documentedAt("/docs/consoles.md#webhooks"))
  )
  .add(
    formPost(
      "checkWebhookSignature",
      "/console/webhooks/check",
      CheckForm,
      HtmlPage(200, "The webhooks page with whether each signature header matches the endpoint's secret")
    )
      .annotate(OpenApi.Summary, "Check a received delivery's signatures (owner, developer)")
      .annotate(
        OpenApi.Description,
        "The raw body and the signature headers a receiver got, checked against the endpoint's current secret: match or not per header, never the expected value."
      )
      .pipe(documentedAt("/docs/consoles.md#checking-a-signature"))
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner console: webhooks")
  .annotate(OpenApi.Description, "A partner's webhook endpoint and deliveries, for its signed-in people (HTML)")
{}
