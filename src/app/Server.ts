/**
 * Composition root: configuration → database (+ migrations, seed data) → services → HTTP.
 *
 * `AppLive(options)` is the whole service as one layer; `main.ts` launches it, tests build it on
 * port 0 with their own configuration. Shutdown (SIGTERM/SIGINT, or the scope closing) stops
 * accepting connections, lets in-flight requests finish (up to SHUTDOWN_GRACE), stops the
 * workers, then closes the database pool and the embedded database.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiSwagger from "@effect/platform/HttpApiSwagger"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
// Deep imports: the package index would also load its cluster modules (@effect/cluster, @effect/rpc,
// ~50 files), which the service never uses (bench/results/memory.md).
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Duration, Effect, Layer, Logger, LogLevel } from "effect"
import { createServer } from "node:http"
import { BatchHttpLive } from "../batch/Http.js"
import { Catalogue } from "../catalogue/Catalogue.js"
import { CatalogueHttpLive } from "../catalogue/Http.js"
import { RealtimeRegisterLive } from "../catalogue/RealtimeRegister.js"
import { CheckoutHandlersLive, CheckoutServicesLive } from "../checkout/Services.js"
import { Accounts } from "../identity/accounts/Accounts.js"
import { AuthHttpLive } from "../identity/accounts/Http.js"
import { ApiKeyStore } from "../identity/apikeys/ApiKeyStore.js"
import { ApiKeyAuthLive } from "../identity/ApiKeysLive.js"
import { OptionalBearerLive } from "../identity/Bearer.js"
import { OAuthHttpLive } from "../identity/oauth/Http.js"
import { OAuth } from "../identity/oauth/OAuth.js"
import { SessionAuthLive } from "../identity/Session.js"
import { LookupHttpLive } from "../lookup/Http.js"
import { LookupServicesLive } from "../lookup/Lookups.js"
import { McpHttpLive } from "../mcp/Discovery.js"
import { PartnerHandlersLive, PartnerMiddlewareLive, PartnerServicesLive } from "../partner/Services.js"
import { ApiErrorsLive } from "../platform/ApiErrors.js"
import { answerClientErrors } from "../platform/ClientError.js"
import { AppConfig, AppConfigLive } from "../platform/Config.js"
import { databaseLayer, DatabaseLive } from "../platform/Database.js"
import { serverMiddleware } from "../platform/HttpMiddleware.js"
import { Idempotency } from "../platform/Idempotency.js"
import { DrainLive, Lifecycle } from "../platform/Lifecycle.js"
import { MetricsRouteLive } from "../platform/Metrics.js"
import { runMigrations } from "../platform/Migrations.js"
import { OpenApiDocumentLive } from "../platform/OpenApiDeployment.js"
import { OutboundLive } from "../platform/Outbound.js"
import { RateLimiterLive } from "../platform/RateLimit.js"
import { guardSettings, makeRouteTable, RequestGuardLive } from "../platform/RequestGuard.js"
import { ServiceSecretLive } from "../platform/ServiceSecret.js"
import { TracingLive } from "../platform/Tracing.js"
import { CartFulfilmentLive } from "../portfolio/Fulfilment.js"
import { PortfolioHttpLive, PortfolioServicesLive } from "../portfolio/Services.js"
import { ReferralServicesLive } from "../referrals/AttributionLive.js"
import { ReferralHandlersLive } from "../referrals/Http.js"
import { marketSeed, SearchHandlersLive, SearchServicesLive } from "../search/Services.js"
import { FaviconRouteLive } from "../system/Favicon.js"
import { SystemHttpLive } from "../system/Http.js"
import { ToolsHttpLive } from "../tools/Http.js"
import { ToolsServicesLive } from "../tools/Tools.js"
import { Api } from "./Api.js"
import { WorkersLive } from "./Workers.js"

/** Database, migrations and seed data: what every process of the service (server, CLI) needs. */
export const DatabaseReadyLive = Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(DatabaseLive))

/**
 * The operator CLI's database: on an embedded DATA_DIR a running service holds, the CLI joins the
 * service's database socket rather than opening the directory a second time (src/platform/DataDirLock.ts).
 */
export const CliDatabaseReadyLive = Layer.effectDiscard(runMigrations()).pipe(
  Layer.provideMerge(databaseLayer({ join: true }))
)

/** Domain services over the database. */
export const ServicesLive = Layer.provideMerge(
  PortfolioServicesLive,
  Layer.provideMerge(
    CheckoutServicesLive,
    Layer.mergeAll(
      CartFulfilmentLive,
      Lifecycle.Live,
      Catalogue.Live,
      Accounts.Live,
      OAuth.Live,
      ApiKeyStore.Live,
      RateLimiterLive,
      ServiceSecretLive,
      Idempotency.Live,
      LookupServicesLive,
      ToolsServicesLive,
      OutboundLive,
      PartnerServicesLive,
      SearchServicesLive,
      ReferralServicesLive.pipe(Layer.provide(ServiceSecretLive))
    ).pipe(
      Layer.provideMerge(RealtimeRegisterLive),
      Layer.provideMerge(NodeHttpClient.layerUndici)
    )
  )
)

const SeedLive = Layer.effectDiscard(Effect.flatMap(Catalogue, (c) => c.seedDefaults).pipe(Effect.zipRight(marketSeed)))

const HandlersLive = Layer.mergeAll(
  SystemHttpLive,
  CatalogueHttpLive,
  LookupHttpLive,
  ToolsHttpLive,
  AuthHttpLive,
  OAuthHttpLive,
  PartnerHandlersLive,
  SearchHandlersLive,
  BatchHttpLive,
  ReferralHandlersLive,
  CheckoutHandlersLive,
  PortfolioHttpLive
)

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide(HandlersLive),
  Layer.provide([OptionalBearerLive, ApiKeyAuthLive, SessionAuthLive, PartnerMiddlewareLive])
)

const HttpLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 120_000 })
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
    return HttpApiBuilder.serve(serverMiddleware(config, routes.operationId, (m, p) => routes.match(m, p)?.template))
      .pipe(
        Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
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

/** The whole service. `config` defaults to the environment. */
export const AppLive = (config: Layer.Layer<AppConfig, unknown> = AppConfigLive) =>
  DrainLive.pipe(
    Layer.provideMerge(HttpLive),
    Layer.provideMerge(WorkersLive),
    Layer.provideMerge(SeedLive),
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(DatabaseReadyLive),
    Layer.provideMerge(NodeContext.layer),
    Layer.provideMerge(LoggerLive),
    Layer.provideMerge(config),
    // Traces only when an OTLP endpoint is configured. Otherwise the tracer is disabled: spans (one
    // per request, SQL statement and upstream call) would cost CPU for nothing (≈ 1 ms of a
    // search's ≈ 21 ms, measured A/B). Either way no `traceparent` goes to third parties.
    Layer.provide(TracingLive.pipe(Layer.provide(config)))
  )
