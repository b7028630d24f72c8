/**
 * W3C Trace Context: the inbound `traceparent` of a request, as the parent of its server span
 * (with tracing on) or as the access log's `trace_id` (with tracing off).
 */
import { OtelTraceFlags } from "@effect/opentelemetry/Tracer"
import { Context, Tracer } from "effect"

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/

export interface TraceParent {
  readonly traceId: string
  readonly spanId: string
  readonly sampled: boolean
}

/**
 * A W3C Trace Context `traceparent` header, or undefined when it is absent or invalid (version
 * ff, all-zero ids, version 00 with trailing data). The service sends no trace headers anywhere.
 */
export const traceParentOf = (header: string | undefined): TraceParent | undefined => {
  if (header === undefined || header.length > 512) return undefined
  const m = TRACEPARENT.exec(header.trim())
  if (!m || m[1] === "ff" || (m[1] === "00" && m[5] !== undefined)) return undefined
  if (/^0+$/.test(m[2]) || /^0+$/.test(m[3])) return undefined
  return { traceId: m[2], spanId: m[3], sampled: (parseInt(m[4], 16) & 1) === 1 }
}

/** The trace id of a valid `traceparent` (logged as the access log's `trace_id` when tracing is off). */
export const traceIdOf = (header: string | undefined): string | undefined => traceParentOf(header)?.traceId

/** The parent of a request's server span: the caller's span, with its sampled flag for the OTel sampler. */
export const parentSpanOf = (header: string | undefined): Tracer.ExternalSpan | undefined => {
  const parent = traceParentOf(header)
  return parent === undefined ? undefined : Tracer.externalSpan({
    traceId: parent.traceId,
    spanId: parent.spanId,
    sampled: parent.sampled,
    context: Context.make(OtelTraceFlags, parent.sampled ? 1 : 0)
  })
}
