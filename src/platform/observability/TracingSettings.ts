/**
 * Trace export settings, read from the standard OpenTelemetry environment variables (the subset
 * this service honours; docs/operations.md, "Tracing"). No endpoint → tracing is off, and off is
 * free: no tracer, no spans (src/platform/observability/Tracing.ts).
 *
 * - OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) or OTEL_EXPORTER_OTLP_ENDPOINT (+ `/v1/traces`);
 * - OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn tracing off whatever the endpoint;
 * - OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: spans are sent as OTLP/HTTP JSON (`http/json`), which
 *   every OTLP/HTTP receiver (collector, Jaeger, Tempo) accepts on the same port as protobuf;
 *   `grpc` is refused at start-up rather than silently exporting nowhere;
 * - OTEL_EXPORTER_OTLP_(TRACES_)HEADERS: `k=v,k2=v2` (e.g. a vendor's API key), sent to the collector only;
 * - OTEL_SERVICE_NAME (default `domain-marketplace`), OTEL_RESOURCE_ATTRIBUTES (read by the SDK);
 * - OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG: always_on, always_off, traceidratio and their
 *   parentbased_ forms (default parentbased_always_on: an inbound `traceparent`'s sampled flag decides).
 */
import { Config, ConfigError, Either, Option, Redacted } from "effect"

export const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const

export type SamplerName = (typeof SAMPLERS)[number]

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP JSON); None: tracing off. */
  readonly endpoint: Option.Option<string>
  /** Extra headers for the collector (may carry a vendor key: redacted). */
  readonly headers: Redacted.Redacted<Readonly<Record<string, string>>>
  readonly serviceName: string
  readonly sampler: SamplerName
  /** The ratio of the `traceidratio` samplers, 0…1. */
  readonly samplerRatio: number
}

const parseHeaders = (s: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const pair of s.split(",")) {
    const eq = pair.indexOf("=")
    if (eq <= 0) continue
    out[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim())
  }
  return out
}

const opt = (name: string) => Config.option(Config.string(name))

export const tracingConfig: Config.Config<TracingSettings> = Config.all({
  tracesEndpoint: opt("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  endpoint: opt("OTEL_EXPORTER_OTLP_ENDPOINT"),
  disabled: Config.boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  exporter: Config.string("OTEL_TRACES_EXPORTER").pipe(Config.withDefault("otlp")),
  protocol: Config.option(Config.string("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")).pipe(
    Config.zipWith(opt("OTEL_EXPORTER_OTLP_PROTOCOL"), (a, b) => Option.orElse(a, () => b))
  ),
  headers: Config.string("OTEL_EXPORTER_OTLP_HEADERS").pipe(Config.withDefault("")),
  tracesHeaders: Config.string("OTEL_EXPORTER_OTLP_TRACES_HEADERS").pipe(Config.withDefault("")),
  serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("domain-marketplace")),
  sampler: Config.string("OTEL_TRACES_SAMPLER").pipe(Config.withDefault("parentbased_always_on")),
  samplerArg: Config.number("OTEL_TRACES_SAMPLER_ARG").pipe(Config.withDefault(1))
}).pipe(
  Config.mapOrFail((c) => {
    const invalid = (message: string) => Either.left(ConfigError.InvalidData([], message))
    const sampler = c.sampler.trim().toLowerCase()
    if (!(SAMPLERS as ReadonlyArray<string>).includes(sampler)) {
      return invalid(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(", ")}`)
    }
    if (!(c.samplerArg >= 0 && c.samplerArg <= 1)) {
      return invalid("OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1")
    }
    const off = c.disabled || c.exporter.trim().toLowerCase() === "none"
    // An empty value (compose's `${OTEL_EXPORTER_OTLP_ENDPOINT:-}`) is unset.
    const set = (o: Option.Option<string>) => Option.filter(Option.map(o, (e) => e.trim()), (e) => e !== "")
    const base = Option.map(set(c.endpoint), (e) => `${e.replace(/\/+$/, "")}/v1/traces`)
    const endpoint = off ? Option.none() : Option.orElse(set(c.tracesEndpoint), () => base)
    if (Option.isSome(endpoint)) {
      if (!/^https?:\/\//i.test(endpoint.value)) return invalid("OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL")
      if (Option.exists(c.protocol, (p) => p.trim().toLowerCase() === "grpc")) {
        return invalid(
          "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: point the endpoint at an OTLP/HTTP receiver (port 4318)"
        )
      }
    }
    return Either.right<TracingSettings>({
      endpoint,
      headers: Redacted.make({ ...parseHeaders(c.headers), ...parseHeaders(c.tracesHeaders) }),
      serviceName: c.serviceName,
      sampler: sampler as SamplerName,
      samplerRatio: c.samplerArg
    })
  })
)
