/** Webhook endpoint registration (scope `webhook`), at the unversioned path of the description. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { documentedAt } from "../../platform/ApiAnnotations.js"
import { BadRequest, InternalError } from "../../platform/Errors.js"
import { PartnerAuth, requiresScope } from "../Auth.js"

export const WebhookRegistration = Schema.Struct({
  url: Schema.String.annotations({ description: "HTTPS URL receiving POSTed events (public address; HTTPS required in production)" }),
  secret: Schema.optional(Schema.String.pipe(Schema.minLength(16), Schema.maxLength(256))).annotations({
    description:
      "Omit it and the service issues a `whsec_<base64>` secret (32 random bytes), returned once in this response; each registration without a secret issues a new one. " +
      "Or send your own (16–256 characters): a `whsec_<base64>` secret is base64-decoded for the Standard Webhooks signature (as its libraries do); " +
      "any other secret is used as its UTF-8 bytes, so verify with `new Webhook(Buffer.from(secret, \"utf8\"), { format: \"raw\" })`."
  })
}).annotations({ identifier: "PartnerWebhookRegistration" })

export const WebhookEndpoint = Schema.Struct({
  url: Schema.String,
  active: Schema.Boolean,
  created_at: Schema.String,
  secret: Schema.optional(Schema.String).annotations({
    description: "Only when the service issued the secret (the request had none): `whsec_<base64>`, shown this once"
  })
}).annotations({ identifier: "PartnerWebhookEndpoint" })

export class PartnerWebhooksApi extends HttpApiGroup.make("partnerWebhooks")
  .add(
    HttpApiEndpoint.put("registerWebhook", "/api/partner/webhooks")
      .setPayload(WebhookRegistration)
      .addSuccess(WebhookEndpoint)
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Register or update the webhook url and secret (issued when omitted)")
      .annotate(OpenApi.Description, "One endpoint per partner and environment. Re-registering re-activates an endpoint disabled by a 410.")
      .pipe(requiresScope("webhook"), documentedAt("/docs/partner.md#webhooks"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: webhooks")
{}
