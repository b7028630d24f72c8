/**
 * Swagger UI at /docs, built on its first request. `HttpApiSwagger.layer` builds the page (which
 * embeds the whole OpenAPI document) when the server starts: ~0.3 s of CPU that start-up need not
 * pay for a page few requests ask for. The page is the one HttpApiSwagger makes, taken from a
 * router of its own on first use and then kept.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiSwagger from "@effect/platform/HttpApiSwagger"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Chunk, Context, Effect, Layer, Option } from "effect"

export const SwaggerUiLive = (path: `/${string}`) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const api = yield* HttpApi.Api
      const page = yield* Effect.cached(
        Effect.gen(function*() {
          const built = yield* Layer.build(
            Layer.provideMerge(HttpApiSwagger.layer({ path }), HttpApiBuilder.Router.Live).pipe(
              Layer.provide(Layer.succeed(HttpApi.Api, api))
            )
          )
          const swagger = yield* Context.get(built, HttpApiBuilder.Router).router
          const route = Option.getOrThrow(Chunk.findFirst(swagger.routes, (r) => r.path === path))
          return yield* (route.handler as Effect.Effect<HttpServerResponse.HttpServerResponse>)
        }).pipe(Effect.scoped)
      )
      yield* router.get(path, page)
    })
  )
