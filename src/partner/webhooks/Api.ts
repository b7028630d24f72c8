/** Webhook endpoint registration (scope `webhook`), at the unversioned path of the description. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { documentedAt } from "../../platform/ApiAnnotations.js"
import { BadRequest, InternalError } from "../../platform/Errors.js"
import { PartnerAuth, requiresScope } from "../Auth.js"

export const WebhookRegistration = Schema.Struct({
  url: Schema.String.annotations({ description: "HTTPS URL receiving POSTed events (public address; HTTPS required in production)" }),
  secret: Schema.String.pipe(Schema.minLength(16), Schema.maxLength(256)).annotations({
    description: "Your signing secret (16–256 characters). A whsec_<base64> secret is base64-decoded for the Standard Webhooks signature."
  })
}).annotations({ identifier: "PartnerWebhookRegistration" })

export const WebhookEndpoint = Schema.Struct({
  url: Schema.String,
  active: Schema.Boolean,
  created_at: Schema.String
}).annotations({ identifier: "PartnerWebhookEndpoint" })

export class PartnerWebhooksApi extends HttpApiGroup.make("partnerWebhooks")
  .add(
    HttpApiEndpoint.put("registerWebhook", "/api/partner/webhooks")
      .setPayload(WebhookRegistration)
      .addSuccess(WebhookEndpoint)
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Register or update the webhook url and secret")
      .annotate(OpenApi.Description, "One endpoint per partner and environment. Re-registering re-activates an endpoint disabled by a 410.")
      .pipe(requiresScope("webhook"), documentedAt("/docs/partner.md#webhooks"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: webhooks")
{}
