/**
 * The audit log for operators: GET /api/admin/audit, newest first, filtered by actor, action and
 * time, paged with the house's sealed cursor (platform/http/PageCursor.ts, `PAGED_LISTS.auditLog`).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { AdminAuth } from "../admin/Auth.js"
import { BadRequest, InternalError, Unauthorized } from "../platform/http/Errors.js"
import { InvalidCursorWire } from "../platform/http/PageCursor.js"

/** One entry, exactly as CONTRACT.md pins it: `{id, at, actor, action, target, before, after, ip}`. */
export const AuditRecord = Schema.Struct({
  id: Schema.String.annotations({ description: "aud_…, time-sortable" }),
  at: Schema.String.annotations({ description: "When, RFC 3339 UTC with milliseconds" }),
  actor: Schema.String.annotations({
    description: "The operator's name (named token), `admin-token` (ADMIN_TOKEN), or `cli:<user>` / the CLI's --as"
  }),
  action: Schema.String.annotations({ description: "What was done, e.g. `order.clear`, `settlement.run`" }),
  target: Schema.NullOr(Schema.String).annotations({ description: "What it was done to (an order, a partner, …)" }),
  before: Schema.Unknown.annotations({ description: "The target's state before (JSON), or null" }),
  after: Schema.Unknown.annotations({ description: "The target's state or the action's result after (JSON), or null" }),
  ip: Schema.NullOr(Schema.String).annotations({ description: "The caller's IP; null from the CLI" })
})

export const AuditPage = Schema.Struct({
  entries: Schema.Array(AuditRecord),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({
  examples: [{
    entries: [{
      id: "aud_01m8h3v6kq2w9x4y5z6a7b8c9d",
      at: "2026-11-28T12:31:05.305Z",
      actor: "Ana Operator",
      action: "order.clear",
      target: "ord_01m8h26g45d5dtfp0576yst7nj",
      before: { status: "HELD" },
      after: { status: "PAID" },
      ip: "203.0.113.10"
    }],
    next_cursor: null
  }]
})

export const AuditQuery = Schema.Struct({
  actor: Schema.optional(Schema.String),
  action: Schema.optional(Schema.String),
  since: Schema.optional(Schema.Date.annotations({ description: "Entries at or after this RFC 3339 time" })),
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 200)))
})

export class AdminAuditApi extends HttpApiGroup.make("adminAudit")
  .add(
    HttpApiEndpoint.get("listAudit", "/api/admin/audit")
      .setUrlParams(AuditQuery)
      .addSuccess(AuditPage)
      .addError(InvalidCursorWire)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Every operator action (admin API and CLI), newest first: who, what, before → after, when, from where. Filter by `actor`, `action`, `since`; page with `limit` (default 50) and `cursor`. Operator only: `Authorization: Bearer <operator token or ADMIN_TOKEN>`, else 401."
      )
      .annotate(OpenApi.Summary, "The audit log, newest first")
  )
  .middleware(AdminAuth)
  .addError(InternalError)
  .addError(Unauthorized)
  .annotate(OpenApi.Title, "Admin: audit log")
  .annotate(OpenApi.Description, "Bearer operator token or ADMIN_TOKEN. See docs/audit.md.")
{}
