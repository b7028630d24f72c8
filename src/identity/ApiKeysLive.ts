/**
 * The ApiKeyAuth middleware: `x-api-key` + `x-api-secret` checked against the issued key pairs
 * (src/identity/apikeys). Missing or wrong → 401 in the legacy error shape. The message does not
 * say which half was wrong.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Layer } from "effect"
import { LegacyUnauthorizedError } from "../platform/http/Errors.js"
import { ApiKeyAuth } from "./ApiKeys.js"
import { ApiKeyStore } from "./apikeys/ApiKeyStore.js"

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const store = yield* ApiKeyStore
    return ApiKeyAuth.of(
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.headers["x-api-key"]?.trim()
        const secret = request.headers["x-api-secret"]?.trim()
        if (!key || !secret) {
          return yield* new LegacyUnauthorizedError({
            code: "missing_api_key",
            message: "Missing x-api-key or x-api-secret header"
          })
        }
        const identity = yield* store.verify(key, secret)
        if (identity === undefined) {
          return yield* new LegacyUnauthorizedError({ code: "invalid_api_key", message: "Invalid API key or secret" })
        }
        return identity
      })
    )
  })
)
