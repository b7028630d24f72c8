/**
 * `GET /metrics` (observability/Metrics.ts renders it): beside the HttpApi, not in the public
 * OpenAPI document, behind METRICS_TOKEN when it is set; or on a listener of its own with
 * METRICS_PORT. See docs/operations.md, "Metrics and logs".
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, FiberRef, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import { AppConfig } from "../Config.js"
import { type Gauge, renderScrape, ScrapeGauges } from "../observability/Metrics.js"
import { typedResponse } from "./ApiErrors.js"
import { CurrentRequestId } from "./Errors.js"

const sha = (s: string) => createHash("sha256").update(s).digest()

/** The `/metrics` answer: the token check (when METRICS_TOKEN is set), then every metric. */
const metricsHandler = Effect.gen(function*() {
  const config = yield* AppConfig
  const sources = yield* Effect.serviceOption(ScrapeGauges)
  // A database that does not answer must not break the scrape: the gauges are left out, and
  // `metrics_scrape_database_ok` says so.
  const webhooks = Option.match(sources, {
    onNone: () => Effect.succeedSome<ReadonlyArray<Gauge>>([]),
    onSome: (s) => s.read.pipe(Effect.timeout("2 seconds"), Effect.sandbox, Effect.option)
  })
  const expected = Option.map(config.metricsToken, (t) => sha(`Bearer ${Redacted.value(t)}`))
  return Effect.gen(function*() {
    if (Option.isSome(expected)) {
      const request = yield* HttpServerRequest.HttpServerRequest
      const given = sha(request.headers.authorization ?? "")
      if (!timingSafeEqual(given, expected.value)) {
        return typedResponse({
          error: {
            code: "unauthorized",
            message: "GET /metrics needs the METRICS_TOKEN as a bearer token",
            request_id: yield* FiberRef.get(CurrentRequestId)
          }
        }, { status: 401, headers: { "www-authenticate": "Bearer" } })
      }
    }
    const body = yield* renderScrape(yield* webhooks)
    return HttpServerResponse.text(body, {
      contentType: "text/plain; version=0.0.4; charset=utf-8",
      headers: { "cache-control": "no-store" }
    })
  })
})

/**
 * `GET /metrics`, beside the HttpApi (not in the public OpenAPI document) — unless METRICS_PORT
 * moves it to its own listener (`MetricsListenerLive`).
 */
export const MetricsRouteLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isSome(config.metricsPort)) return
    yield* router.get("/metrics", yield* metricsHandler)
  })
)

/**
 * METRICS_PORT: a second listener, on HOST, that serves `GET /metrics` and nothing else (404), so
 * a proxy that exposes PORT never exposes the metrics. Nothing without METRICS_PORT.
 */
export const MetricsListenerLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isNone(config.metricsPort)) return Layer.empty
    const handler = yield* metricsHandler
    const port = config.metricsPort.value
    return HttpServer.serve(HttpRouter.empty.pipe(HttpRouter.get("/metrics", handler))).pipe(
      Layer.provide(NodeHttpServer.layer(() => createServer(), { port, host: config.host })),
      Layer.tap(() => Effect.logInfo("metrics listening").pipe(Effect.annotateLogs({ host: config.host, port })))
    )
  })
)
