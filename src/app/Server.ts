/**
 * Composition root: configuration → database (+ migrations, seed data) → capabilities
 * (./Layers.ts) → HTTP.
 *
 * `AppLive(configProvider?)` is the whole service as one layer; `main.ts` launches it, tests build
 * it on port 0 with their own ConfigProvider (read by the platform's and every capability's settings). Shutdown (SIGTERM/SIGINT, or the scope closing) stops
 * accepting connections, lets in-flight requests finish (up to SHUTDOWN_GRACE), stops the
 * workers, then closes the database pool and the embedded database.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
// Deep imports: the package index would also load its cluster modules (@effect/cluster, @effect/rpc,
// ~50 files), which the service never uses (bench/results/memory.md).
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { type ConfigProvider, Deferred, Duration, Effect, Layer, Logger, LogLevel } from "effect"
import { createServer } from "node:http"
import { Catalogue } from "../catalogue/Catalogue.js"
import { SESSION_COOKIE } from "../identity/Session.js"
import { Market } from "../market/Market.js"
import { McpHttpLive } from "../mcp/Discovery.js"
import { AppConfig, AppConfigLive, type AppConfigShape } from "../platform/Config.js"
import { DatabaseLive } from "../platform/db/Database.js"
import { runMigrations } from "../platform/db/Migrations.js"
import { ApiErrorsLive } from "../platform/http/ApiErrors.js"
import { answerClientErrors } from "../platform/http/ClientError.js"
import { sitePages } from "../platform/http/Html.js"
import { serverMiddleware } from "../platform/http/HttpMiddleware.js"
import { MetricsListenerLive, MetricsRouteLive } from "../platform/http/MetricsRoute.js"
import { guardSettings, RequestGuardLive } from "../platform/http/RequestGuard.js"
import { makeRouteTable } from "../platform/http/RouteTable.js"
import { DrainLive } from "../platform/Lifecycle.js"
import { TracingLive } from "../platform/observability/Tracing.js"
import { OpenApiDocumentLive } from "../platform/openapi/OpenApiDeployment.js"
import { SwaggerUiLive } from "../platform/openapi/SwaggerUi.js"
import { FaviconRouteLive } from "../system/Favicon.js"
import { Api } from "./Api.js"
import { CapabilitiesLive, SettingsLive } from "./Layers.js"
import { WorkersLive } from "./Workers.js"

/** The database, migrations applied: what every process of the service (server, CLI) needs. */
const databaseReady = (database: typeof DatabaseLive) =>
  Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(database))

export const DatabaseReadyLive = databaseReady(DatabaseLive)

const SeedLive = Layer.effectDiscard(
  Effect.zipRight(Effect.flatMap(Catalogue, (c) => c.seedDefaults), Effect.flatMap(Market, (m) => m.seed))
)

/** The root HttpApi over the handler groups and middleware the capability layers provide. */
const ApiLive = HttpApiBuilder.api(Api)

/**
 * Slow senders (slowloris) are cut off by Node itself: the request line and headers within
 * REQUEST_HEADERS_TIMEOUT, the whole request a little after REQUEST_BODY_TIMEOUT more — a backstop
 * for routes the request guard does not read the body of (the guard answers a slow body first,
 * in the path's error shape). Node checks every `connectionsCheckingInterval`. 0 disables a limit.
 */
const receiptLimits = (config: AppConfigShape) => {
  const headers = Duration.toMillis(config.http.headersTimeout)
  const body = Duration.toMillis(config.http.bodyTimeout)
  return {
    headersTimeout: headers,
    requestTimeout: body === 0 ? 0 : headers + body + 1_000,
    connectionsCheckingInterval: 500
  }
}

const HttpLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const server = createServer({ keepAliveTimeout: 65_000, ...receiptLimits(config) })
    answerClientErrors(server)
    const routes = makeRouteTable(Api)
    // Graceful shutdown: `close` stops accepting and waits for in-flight requests; after the grace
    // period, remaining connections are cut so a stuck client cannot hold the process hostage.
    const close = server.close.bind(server)
    server.close = ((callback?: (err?: Error) => void) => {
      server.closeIdleConnections()
      // A keep-alive connection whose request was in flight turns idle when its response is
      // sent: close it then too, rather than waiting for its keep-alive timeout.
      const sweep = setInterval(() => server.closeIdleConnections(), 50)
      sweep.unref()
      const timer = setTimeout(() => server.closeAllConnections(), Duration.toMillis(config.shutdownGrace))
      timer.unref()
      return close((err) => {
        clearTimeout(timer)
        clearInterval(sweep)
        callback?.(err)
      })
    }) as typeof server.close
    const middleware = serverMiddleware(config, routes.operationId, (m, p) => routes.match(m, p)?.template)
    // Every HTML answer: "Sign in" in the header without a session, and with TEST_MODE=true the
    // "Test mode" banner (src/platform/Deployment.ts).
    const pages = sitePages({ testMode: config.testMode, sessionCookie: SESSION_COOKIE })
    return HttpApiBuilder.serve((app) => middleware(pages(app)))
      .pipe(
        // The router's default answers a path parameter over 100 characters with "no route" (404),
        // which no endpoint declares (and a valid domain name may have 253 characters). Node caps a
        // request line at 16 KiB, so with this room the endpoint's own schema judges any parameter.
        Layer.locally(HttpRouter.currentRouterConfig, { maxParamLength: 16_384 }),
        Layer.provide(SwaggerUiLive("/docs")),
        Layer.provide(MetricsRouteLive),
        Layer.provide(FaviconRouteLive),
        Layer.provide(McpHttpLive),
        Layer.provide(OpenApiDocumentLive({ baseUrl: config.baseUrl, deprecations: config.deprecations })),
        Layer.provide(ApiErrorsLive),
        Layer.provide(RequestGuardLive(guardSettings(config), routes)),
        Layer.provide(ApiLive),
        HttpServer.withLogAddress,
        // The request span is serverMiddleware's (route-named, no query string, no headers).
        HttpMiddleware.withTracerDisabledWhen(() => true),
        Layer.provideMerge(NodeHttpServer.layer(() => server, { port: config.port, host: config.host }))
      )
  })
)

export const LoggerLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const level = LogLevel.allLevels.find((l) => l.label.toLowerCase() === config.logLevel.toLowerCase()) ??
      LogLevel.Info
    return Layer.mergeAll(
      config.logFormat === "pretty" ? Logger.pretty : Logger.json,
      Logger.minimumLogLevel(level)
    )
  })
)

/**
 * The background workers, started once the listener is up (their first runs no longer delay
 * `/readyz`, issue 35 item 6) yet stopped after it on shutdown: the layer sits in the workers'
 * place below HTTP, so its scope closes after the listener's, and builds them in that scope when
 * `listening` is done. A worker that fails to start is logged; the service keeps serving.
 */
const WorkersAfterListening = (listening: Deferred.Deferred<void>) =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      yield* Effect.forkScoped(
        Deferred.await(listening).pipe(
          Effect.zipRight(Layer.buildWithScope(WorkersLive, scope)),
          Effect.tapErrorCause((cause) => Effect.logError("the background workers failed to start", cause))
        )
      )
    })
  )

/**
 * The whole service. Configuration comes from `configProvider`, else the environment; the
 * database is `options.database` when given (the tests' embedded database from a migrated image),
 * else DATABASE_URL or the embedded PostgreSQL (`DatabaseLive`).
 */
export const AppLive = (
  configProvider?: ConfigProvider.ConfigProvider,
  options?: { readonly database?: typeof DatabaseLive }
) => {
  const app = Layer.unwrapEffect(
    Effect.map(Deferred.make<void>(), (listening) =>
      Layer.effectDiscard(Deferred.succeed(listening, undefined)).pipe(
        Layer.provideMerge(DrainLive),
        Layer.provideMerge(HttpLive),
        // METRICS_PORT: /metrics on its own listener (src/platform/observability/Metrics.ts).
        Layer.provideMerge(MetricsListenerLive),
        Layer.provideMerge(WorkersAfterListening(listening)),
        Layer.provideMerge(SeedLive),
        Layer.provideMerge(CapabilitiesLive),
        Layer.provideMerge(databaseReady(options?.database ?? DatabaseLive)),
        Layer.provideMerge(SettingsLive),
        Layer.provideMerge(NodeContext.layer),
        Layer.provideMerge(LoggerLive),
        Layer.provideMerge(AppConfigLive),
        // Traces only when an OTLP endpoint is configured. Otherwise the tracer is disabled: spans (one
        // per request, SQL statement and upstream call) would cost CPU for nothing (≈ 1 ms of a
        // search's ≈ 21 ms, measured A/B). Either way no `traceparent` goes to third parties.
        // Its "exporting traces" line in the service's log format.
        Layer.provide(TracingLive.pipe(Layer.provide(LoggerLive), Layer.provide(AppConfigLive)))
      ))
  )
  return configProvider === undefined ? app : app.pipe(Layer.provide(Layer.setConfigProvider(configProvider)))
}
