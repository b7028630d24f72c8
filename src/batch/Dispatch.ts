/**
 * In-process dispatch of a synthetic request through the service's own HttpApp, so a batch
 * operation runs exactly the handler (validation, rate limit, masking) of its single call.
 *
 * The app is registered once by the server (`SelfApp.register` wraps the app given to
 * `HttpApiBuilder.serve`). A dispatched request carries the caller's IP and nothing else of the
 * caller: no Authorization, no cookies, no API key — it can reach nothing an anonymous direct
 * call could not. Pre-response handlers (RateLimit headers…) of the operation stay with the
 * operation's response, and FiberRef changes never leak into the enveloping request.
 */
import type { HttpApi, HttpRouter, HttpServerResponse } from "@effect/platform"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Chunk, Context, Effect, Exit, Fiber, FiberRef, Layer, Option, type Scope, Stream } from "effect"
import { CurrentResponseHeaders } from "../platform/ResponseHeaders.js"

export interface SyntheticRequest {
  readonly method: "GET" | "POST"
  /** Path and query string, already encoded. */
  readonly url: string
  readonly body?: unknown
}

export interface DispatchedResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string
  readonly text: string
}

type App = HttpApp.Default<never, HttpRouter.HttpRouter.DefaultServices>

export interface SelfAppShape {
  /** Called by the server with its app; returns it unchanged. */
  readonly register: (app: App) => App
  readonly dispatch: (
    request: SyntheticRequest,
    callerIp: string,
    trustProxy: number
  ) => Effect.Effect<DispatchedResponse, never, HttpRouter.HttpRouter.DefaultServices>
}

export class SelfApp extends Context.Tag("app/SelfApp")<SelfApp, SelfAppShape>() {
  static readonly Live = Layer.sync(SelfApp, () => makeSelfApp())
}

const decoder = new TextDecoder()

const bodyText = (response: HttpServerResponse.HttpServerResponse): Effect.Effect<string> => {
  const body = response.body
  switch (body._tag) {
    case "Uint8Array":
      return Effect.succeed(decoder.decode(body.body))
    case "Stream":
      return Stream.runCollect(body.stream).pipe(
        Effect.map((chunks) =>
          Buffer.concat(Chunk.toReadonlyArray(chunks).map((c) => Buffer.from(c))).toString("utf8")
        ),
        Effect.orElseSucceed(() => "")
      )
    case "Raw":
      return Effect.succeed(typeof body.body === "string" ? body.body : "")
    default:
      return Effect.succeed("")
  }
}

export const makeSelfApp = (): SelfAppShape => {
  let app: App | undefined
  return {
    register: (a) => {
      app = a
      return a
    },
    dispatch: (request, callerIp, trustProxy) =>
      Effect.gen(function*() {
        if (app === undefined) {
          return yield* Effect.dieMessage("batch dispatch used before the server registered its app")
        }
        const headers: Record<string, string> = { accept: "application/json, application/x-ndjson" }
        if (request.body !== undefined) headers["content-type"] = "application/json"
        // The rate limiter reads the socket peer, or X-Forwarded-For behind trusted proxies.
        if (trustProxy > 0) headers["x-forwarded-for"] = callerIp
        const web = new Request(`http://batch.internal${request.url}`, {
          method: request.method,
          headers,
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) })
        })
        const synthetic = HttpServerRequest.fromWeb(web).modify({ remoteAddress: callerIp })
        const run = Effect.gen(function*() {
          const response = yield* app!
          const handler = yield* FiberRef.get(HttpApp.currentPreResponseHandlers)
          const final = Option.isSome(handler) ? yield* handler.value(synthetic, response) : response
          return {
            status: final.status,
            headers: { ...final.headers },
            contentType: final.headers["content-type"] ??
              (final.body._tag === "Empty" ? "" : final.body.contentType ?? ""),
            text: yield* bodyText(final)
          } satisfies DispatchedResponse
        }).pipe(
          Effect.locally(HttpApp.currentPreResponseHandlers, Option.none()),
          // Response headers of the operation stay with the operation, not the envelope.
          Effect.locally(CurrentResponseHeaders, undefined),
          Effect.provideService(HttpServerRequest.HttpServerRequest, synthetic),
          Effect.scoped
        )
        // A child fiber: its FiberRef changes are not merged back (await, not join); it is
        // interrupted with the enveloping request.
        const fiber = yield* Effect.fork(run)
        const exit = yield* Fiber.await(fiber)
        if (Exit.isSuccess(exit)) return exit.value
        yield* Effect.logError("batch operation failed unexpectedly", exit.cause)
        return {
          status: 500,
          headers: {},
          contentType: "application/json",
          text: JSON.stringify({
            error: { code: "internal_error", message: "Unexpected error; retry with exponential back-off" }
          })
        } satisfies DispatchedResponse
      })
  }
}

/**
 * `HttpApiBuilder.serve`, registering the built app with `SelfApp` first so batch operations
 * can be dispatched through it (the app before the server middleware and response writing).
 */
export const serveWithSelfDispatch = <R = never>(
  middleware?: (httpApp: HttpApp.Default) => HttpApp.Default<never, R>
): Layer.Layer<
  never,
  never,
  | HttpServer.HttpServer
  | HttpRouter.HttpRouter.DefaultServices
  | Exclude<R, Scope.Scope | HttpServerRequest.HttpServerRequest>
  | HttpApi.Api
  | SelfApp
> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const self = yield* SelfApp
      const app = yield* HttpApiBuilder.httpApp
      return HttpServer.serve(self.register(app) as HttpApp.Default, middleware!)
    })
  ).pipe(Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))
