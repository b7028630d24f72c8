/**
 * Operator endpoints under /api/admin: `Authorization: Bearer <ADMIN_TOKEN>`, compared in
 * constant time. Without ADMIN_TOKEN configured every admin call is refused.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { AppConfig } from "../platform/Config.js"
import { Unauthorized, UnauthorizedError } from "../platform/http/Errors.js"
import type { DocumentedSecurity } from "../platform/openapi/OpenApiDoc.js"

export class AdminAuth extends HttpApiMiddleware.Tag<AdminAuth>()("AdminAuth", {
  failure: Unauthorized
}) {
  static readonly openApiSecurity: DocumentedSecurity = {
    schemes: {
      adminToken: {
        type: "http",
        scheme: "bearer",
        description: "The operator token (ADMIN_TOKEN), not an OAuth access token"
      }
    }
  }
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest()

export const AdminAuthLive = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const expected = Option.map(config.adminToken, (t) => digest(Redacted.value(t)))
    return AdminAuth.of(
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const header = request.headers.authorization ?? ""
        const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
        if (!m) {
          return yield* new UnauthorizedError({
            code: "unauthorized",
            message: "Authorization: Bearer <ADMIN_TOKEN> is required"
          })
        }
        if (Option.isNone(expected) || !timingSafeEqual(digest(m[1]), expected.value)) {
          return yield* new UnauthorizedError({ code: "unauthorized", message: "Invalid admin token" })
        }
      })
    )
  })
)
