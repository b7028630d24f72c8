/**
 * The OptionalBearer middleware: resolves `Authorization: Bearer <token>` to a Viewer.
 * (Token storage and issuance live in the OAuth server; this file only checks tokens.)
 */
import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { AppConfig } from "../platform/Config.js"
import { UnauthorizedError } from "../platform/Errors.js"
import { anonymous, OptionalBearer, type Viewer } from "./Viewer.js"

/** Looks a presented access token up; None when unknown, expired or revoked. */
export type TokenResolver = (token: string) => Effect.Effect<Viewer | undefined>

export const makeOptionalBearer = (resolve: TokenResolver) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const resourceMetadata = `${config.baseUrl}/.well-known/oauth-protected-resource`
    const invalid = (description: string) =>
      HttpApp.appendPreResponseHandler((_req, res) =>
        Effect.succeed(
          HttpServerResponse.setHeader(
            res,
            "www-authenticate",
            `Bearer error="invalid_token", error_description="${description}", resource_metadata="${resourceMetadata}"`
          )
        )
      ).pipe(Effect.zipRight(new UnauthorizedError({ code: "invalid_token", message: description })))

    return OptionalBearer.of({
      bearer: () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const header = request.headers.authorization
          if (header === undefined || header.trim() === "") return anonymous
          const match = /^Bearer\s+([\x21-\x7e]+)\s*$/i.exec(header)
          if (!match) return yield* invalid("The Authorization header must be: Bearer <access token>")
          const viewer = yield* resolve(match[1])
          if (viewer === undefined) return yield* invalid("The access token is invalid, expired or revoked")
          return viewer
        })
    })
  })

/** Until the OAuth server issues tokens, every presented token is unknown. */
export const OptionalBearerLive = Layer.effect(OptionalBearer, makeOptionalBearer(() => Effect.succeed(undefined)))

