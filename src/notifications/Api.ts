/**
 * The account's notifications log (docs/notifications.md), session cookie only:
 *
 *   GET /api/account/notifications    what the service told the signed-in user, newest first
 *
 * In development nothing is e-mailed: this log is where a user (and a tester) reads what would
 * have been sent.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { SessionAuth } from "../identity/Session.js"
import { documentedAt } from "../platform/http/ApiAnnotations.js"

export const Notification = Schema.Struct({
  id: Schema.String.annotations({ description: "`ntf_…`, time-sortable" }),
  kind: Schema.String.annotations({ description: "What happened, e.g. `cart.completed`" }),
  subject: Schema.String.annotations({ description: "The id it is about, e.g. the cart's `cart_…`" }),
  message: Schema.String,
  created_at: Schema.String.annotations({ description: "RFC 3339 UTC" })
}).annotations({
  identifier: "Notification",
  examples: [{
    id: "ntf_01jd3k9x0a1b2c3d4e5f6g7h8j",
    kind: "cart.completed",
    subject: "cart_01jd3k9x0a1b2c3d4e5f6g7h8j",
    message: "Cart cart_01jd3k9x0a1b2c3d4e5f6g7h8j ($12.99 paid): example.com: renewed.",
    created_at: "2026-01-09T14:05:40.000Z"
  }]
})

export class NotificationList extends Schema.Class<NotificationList>("NotificationList")({
  notifications: Schema.Array(Notification).annotations({ description: "The latest 100, newest first" })
}) {}

export class NotificationsApi extends HttpApiGroup.make("notifications")
  .add(
    HttpApiEndpoint.get("list", "/api/account/notifications")
      .addSuccess(NotificationList)
      .annotate(OpenApi.Summary, "The signed-in user's notifications log")
      .annotate(
        OpenApi.Description,
        "What the service told the user (a paid cart's outcome: what ran, what was refunded), newest first. 401 `not_signed_in` without a session."
      )
      .pipe(documentedAt("/docs/notifications.md"))
  )
  .middleware(SessionAuth)
  .annotate(OpenApi.Title, "Notifications")
  .annotate(OpenApi.Description, "The signed-in user's notifications log (session cookie)")
{}
