/** Handler of GET /api/admin/audit: the cursor read, one service call, the page. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { pageCursor, PAGED_LISTS } from "../platform/http/PageCursor.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { AuditLog } from "./AuditLog.js"

export const AdminAuditHttpLive = HttpApiBuilder.group(Api, "adminAudit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* AuditLog
    const secrets = yield* ServiceSecret
    return handlers.handle("listAudit", ({ urlParams }) =>
      Effect.gen(function*() {
        const filters = {
          actor: urlParams.actor,
          action: urlParams.action,
          since: urlParams.since?.toISOString()
        }
        const cursor = pageCursor(secrets, PAGED_LISTS.auditLog, "admin", filters)
        const beforeId = yield* cursor.read(urlParams.cursor)
        const limit = urlParams.limit ?? 50
        const rows = yield* audit.list({ ...urlParams, beforeId, limit: limit + 1 })
        const page = rows.slice(0, limit)
        return { entries: page, next_cursor: cursor.next(page[page.length - 1]?.id, rows.length > limit) }
      }))
  }))
