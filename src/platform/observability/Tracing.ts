/**
 * OpenTelemetry traces, exported over OTLP/HTTP when an endpoint is configured
 * (TracingSettings.ts), through `@effect/opentelemetry`: Effect's own spans become OTel spans.
 *
 * What is traced: one server span per HTTP request (made by `serverMiddleware`, named after the
 * route template; an inbound W3C `traceparent` is its parent), a `sql.execute` span per statement
 * (@effect/sql), a client span per upstream call (Effect's HttpClient: registrar, RDAP bootstrap, payouts;
 * RDAP queries: lookup/Rdap.ts, same name and attributes; Outbound: webhooks, site checks), and one
 * span per unit of background work (a webhook delivery attempt, a scheduled run such as
 * settlement, a durable job).
 *
 * CONTRACT:
 * - Off (no endpoint) costs nothing: the tracer is disabled (no span objects, no stack captures)
 *   and the OTel SDK is not even loaded.
 * - Trace context is honoured inbound and never sent out: every upstream is a third party, so
 *   outbound requests carry no `traceparent` (HttpClient propagation is off in both modes).
 * - No secret reaches an attribute: the request span records the route template and path (never
 *   the query string, which may carry `pt=`/`t=` tokens) and no headers; HttpClient spans redact
 *   every header whose name suggests a credential; SQL spans carry the statement text with its
 *   `$n` placeholders, never the parameters.
 * - A SQL statement outside any request or job (a queue poll, a lock attempt) is not exported:
 *   polls every few hundred milliseconds would otherwise bury the traces that matter.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type { Sampler } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../Config.js"
import type { TracingSettings } from "./TracingSettings.js"

/** Header names whose values never become span attributes (Effect's HttpClient spans). */
export const REDACTED_HEADERS: ReadonlyArray<string | RegExp> = [
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  /signature/i,
  /secret/i,
  /token/i,
  /auth/i,
  /key/i,
  /session/i,
  /card/i
]

/** What tracing does to every fiber of the service, on or off. */
const hygiene = Layer.mergeAll(
  Layer.locallyScoped(HttpClient.currentTracerPropagation, false),
  Layer.locallyScoped(Headers.currentRedactedNames, REDACTED_HEADERS)
)

/** Span names that are not worth a trace of their own (see the contract). */
const ORPHANS_DROPPED = new Set(["sql.execute", "sql.transaction"])

/**
 * A dynamically imported CommonJS package's exports. Node gives its named exports on the
 * namespace; the production bundle (esbuild, split into chunks) gives the whole `module.exports`
 * as `default` only, so a named export read off the namespace there is undefined.
 */
const cjs = <M extends object>(namespace: M): M =>
  "default" in namespace && Object.keys(namespace).length === 1 ? namespace.default as M : namespace

const makeSampler = async (settings: TracingSettings): Promise<Sampler> => {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler } = cjs(
    await import("@opentelemetry/sdk-trace-base")
  )
  const root = settings.sampler.endsWith("always_off")
    ? new AlwaysOffSampler()
    : settings.sampler.endsWith("traceidratio")
    ? new TraceIdRatioBasedSampler(settings.samplerRatio)
    : new AlwaysOnSampler()
  const configured = settings.sampler.startsWith("parentbased_") ? new ParentBasedSampler({ root }) : root
  const { trace } = cjs(await import("@opentelemetry/api"))
  return {
    shouldSample: (context, traceId, name, kind, attributes, links) =>
      trace.getSpanContext(context) === undefined && ORPHANS_DROPPED.has(name)
        ? { decision: SamplingDecision.NOT_RECORD }
        : configured.shouldSample(context, traceId, name, kind, attributes, links),
    toString: () => `DropOrphanSql{${configured.toString()}}`
  }
}

/** The service's tracer: the OTel SDK when an endpoint is configured, else no tracing at all. */
export const TracingLive: Layer.Layer<never, never, AppConfig> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { tracing } = yield* AppConfig
    if (Option.isNone(tracing.endpoint)) return Layer.merge(hygiene, Layer.setTracerEnabled(false))
    const url = tracing.endpoint.value
    const [{ layer }, { BatchSpanProcessor }, { OTLPTraceExporter }, sampler] = yield* Effect.promise(() =>
      Promise.all([
        import("@effect/opentelemetry/NodeSdk"),
        import("@opentelemetry/sdk-trace-base").then(cjs),
        import("@opentelemetry/exporter-trace-otlp-http").then(cjs),
        makeSampler(tracing)
      ])
    )
    yield* Effect.logInfo("exporting traces").pipe(
      Effect.annotateLogs({ endpoint: redactUrl(url), service: tracing.serviceName, sampler: tracing.sampler })
    )
    const sdk = layer(() => ({
      resource: { serviceName: tracing.serviceName, serviceVersion: SERVICE_VERSION },
      spanProcessor: new BatchSpanProcessor(
        new OTLPTraceExporter({ url, headers: { ...Redacted.value(tracing.headers) } })
      ),
      tracerConfig: { sampler },
      shutdownTimeout: "3 seconds"
    }))
    return Layer.merge(hygiene, sdk)
  })
)

/** `info.version` of the API (the OpenAPI document) is the service's version. */
const SERVICE_VERSION = "1.3.0"

const redactUrl = (url: string) => {
  try {
    const u = new URL(url)
    return `${u.origin}${u.pathname}`
  } catch {
    return "(invalid)"
  }
}
