/**
 * What can go wrong with a partner's webhook endpoint, as domain errors (platform/http/Errors.ts):
 * each carries its wire code and status; the endpoints declare them with `errorWire`.
 */
import { DomainError } from "../../platform/http/Errors.js"

/** The registered URL is not acceptable (`details: [{path: ["url"], message}]`). */
export class InvalidWebhookUrl extends DomainError<InvalidWebhookUrl>()("InvalidWebhookUrl", {
  code: "validation_error",
  status: 400,
  description: "The webhook URL is not an acceptable public http(s) URL"
}) {
  static of(message: string) {
    return new InvalidWebhookUrl({ message: `url: ${message}`, details: [{ path: ["url"], message }] })
  }
}

/** The chosen secret is not acceptable (`details: [{path: ["secret"], message}]`). */
export class InvalidWebhookSecret extends DomainError<InvalidWebhookSecret>()("InvalidWebhookSecret", {
  code: "validation_error",
  status: 400,
  description: "The webhook secret is malformed"
}) {
  static of(message: string) {
    return new InvalidWebhookSecret({ message: `secret: ${message}`, details: [{ path: ["secret"], message }] })
  }
}

export class WebhookEndpointNotFound extends DomainError<WebhookEndpointNotFound>()("WebhookEndpointNotFound", {
  code: "not_found",
  status: 404,
  description: "No webhook endpoint is registered for the credential's environment"
}) {}

export class WebhookDisabled extends DomainError<WebhookDisabled>()("WebhookDisabled", {
  code: "webhook_disabled",
  status: 409,
  description: "The webhook endpoint was disabled after its receiver answered 410 Gone; register it again"
}) {}

export class WebhookEventNotFound extends DomainError<WebhookEventNotFound>()("WebhookEventNotFound", {
  code: "not_found",
  status: 404,
  description: "No such event for the credential's partner and environment"
}) {}
