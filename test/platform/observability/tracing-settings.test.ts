/**
 * The OTEL_* variables the service honours (src/platform/observability/TracingSettings.ts) and the inbound
 * `traceparent` parser: pure configuration and parsing, no server.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { traceParentOf } from "../../../src/platform/observability/TraceContext.js"
import { tracingConfig } from "../../../src/platform/observability/TracingSettings.js"

const read = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(tracingConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("tracing settings", () => {
  it.effect("off without an endpoint (or with an empty one), and when disabled", () =>
    Effect.gen(function*() {
      for (
        const env of [
          {} as Record<string, string>,
          { OTEL_EXPORTER_OTLP_ENDPOINT: "" },
          { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" },
          { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }
        ]
      ) {
        const s = yield* read(env)
        expect(Either.isRight(s) && Option.isNone(s.right.endpoint), JSON.stringify(env)).toBe(true)
      }
    }))

  it.effect("the base endpoint gets /v1/traces; the traces endpoint is used as is; defaults", () =>
    Effect.gen(function*() {
      const base = yield* tracingConfig.pipe(
        Effect.withConfigProvider(
          ConfigProvider.fromMap(
            new Map([["OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"], [
              "OTEL_EXPORTER_OTLP_HEADERS",
              "api-key=abc,x-team=t%201"
            ]])
          )
        )
      )
      expect(Option.getOrNull(base.endpoint)).toBe("http://collector:4318/v1/traces")
      expect(base).toMatchObject({
        serviceName: "domain-marketplace",
        sampler: "parentbased_always_on",
        samplerRatio: 1
      })
      expect(Redacted.value(base.headers)).toEqual({ "api-key": "abc", "x-team": "t 1" })
      const traces = yield* tracingConfig.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(
          new Map([
            ["OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"],
            ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://vendor.example/otlp/traces"],
            ["OTEL_TRACES_SAMPLER", "parentbased_traceidratio"],
            ["OTEL_TRACES_SAMPLER_ARG", "0.25"]
          ])
        ))
      )
      expect(Option.getOrNull(traces.endpoint)).toBe("https://vendor.example/otlp/traces")
      expect(traces).toMatchObject({ sampler: "parentbased_traceidratio", samplerRatio: 0.25 })
    }))

  it.effect("refuses gRPC, unknown samplers, ratios outside 0…1 and non-HTTP endpoints", () =>
    Effect.gen(function*() {
      const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }
      for (
        const env of [
          { ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
          { ...endpoint, OTEL_TRACES_SAMPLER: "sometimes" },
          { ...endpoint, OTEL_TRACES_SAMPLER_ARG: "2" },
          { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }
        ]
      ) {
        expect(Either.isLeft(yield* read(env)), JSON.stringify(env)).toBe(true)
      }
    }))
})

describe("traceparent", () => {
  it("parses valid headers with their sampled flag and refuses invalid ones", () => {
    expect(traceParentOf("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      sampled: true
    })
    expect(traceParentOf("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.sampled).toBe(false)
    for (
      const bad of [
        undefined,
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"
      ]
    ) {
      expect(traceParentOf(bad), String(bad)).toBeUndefined()
    }
  })
})
