/** Placeholder until API key pairs are issued: every request is refused (legacy 401). */
import { Effect, Layer } from "effect"
import { LegacyUnauthorizedError } from "../platform/Errors.js"
import { ApiKeyAuth } from "./ApiKeys.js"

export const ApiKeyAuthLive = Layer.succeed(
  ApiKeyAuth,
  ApiKeyAuth.of(Effect.fail(new LegacyUnauthorizedError({ code: "unauthorized", message: "Missing or invalid x-api-key / x-api-secret" })))
)
