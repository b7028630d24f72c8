/**
 * Operator endpoints under /api/admin: `Authorization: Bearer <token>`, where the token is a named
 * operator token (src/admin/OperatorTokens.ts: `operator token create --name …`) or the shared
 * ADMIN_TOKEN (recorded as "admin-token"). Both are compared in constant time. Without
 * ADMIN_TOKEN configured only operator tokens are accepted. Provides `CurrentOperator` (who, from
 * where) to the handlers, which the audit log records.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { AppConfig } from "../platform/Config.js"
import { clientIpOf } from "../platform/http/ClientIp.js"
import { Unauthorized, UnauthorizedError } from "../platform/http/Errors.js"
import type { DocumentedSecurity } from "../platform/openapi/OpenApiDoc.js"
import { ADMIN_TOKEN_ACTOR, CurrentOperator } from "./Operator.js"
import { OperatorTokens } from "./OperatorTokens.js"

export class AdminAuth extends HttpApiMiddleware.Tag<AdminAuth>()("AdminAuth", {
  failure: Unauthorized,
  provides: CurrentOperator
}) {
  static readonly openApiSecurity: DocumentedSecurity = {
    schemes: {
      adminToken: {
        type: "http",
        scheme: "bearer",
        description: "A named operator token (`operator token create`) or ADMIN_TOKEN; not an OAuth access token"
      }
    }
  }
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest()

export const AdminAuthLive = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const tokens = yield* OperatorTokens
    const expected = Option.map(config.adminToken, (t) => digest(Redacted.value(t)))
    return AdminAuth.of(
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const header = request.headers.authorization ?? ""
        const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
        if (!m) {
          return yield* new UnauthorizedError({
            code: "unauthorized",
            message: "Authorization: Bearer <operator token or ADMIN_TOKEN> is required"
          })
        }
        const ip = clientIpOf(request, config.trustProxy)
        if (Option.isSome(expected) && timingSafeEqual(digest(m[1]), expected.value)) {
          return { id: null, name: ADMIN_TOKEN_ACTOR, ip }
        }
        const operator = yield* tokens.authenticate(m[1])
        if (Option.isNone(operator)) {
          return yield* new UnauthorizedError({ code: "unauthorized", message: "Invalid admin token" })
        }
        return { id: operator.value.id, name: operator.value.name, ip }
      })
    )
  })
)
