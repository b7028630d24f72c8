/**
 * What an agent tool is, and the three things every tool does the same way: decode its arguments
 * with its input schema (an unknown or malformed argument is `invalid_arguments`), count the call
 * against the REST endpoint's quota per caller (`admit`), and answer a service's domain error as a
 * `ToolFailure` with that error's wire code (`toolFailure`). The tools themselves are ./Tools.ts.
 */
import { Effect, ParseResult, Schema } from "effect"
import type { Catalogue } from "../catalogue/Catalogue.js"
import type { Viewer } from "../identity/Viewer.js"
import type { Lookups } from "../lookup/Lookups.js"
import type { Market } from "../market/Market.js"
import type { AppConfig } from "../platform/Config.js"
import type { DomainErrorMeta } from "../platform/http/Errors.js"
import { RateLimiter, type RateLimitPolicy } from "../platform/http/RateLimit.js"
import type { Search } from "../search/Search.js"
import type { Tools } from "../tools/Tools.js"
import { type ObjectJsonSchema, objectJsonSchema } from "./Schemas.js"

/** Who calls, as far as a tool needs to know. */
export interface Caller {
  readonly viewer: Viewer
  /** The client IP (per-IP quotas of anonymous callers). */
  readonly ip: string
  readonly requestId: string
  /** Reports progress (search rows as they arrive); a no-op when the client asked for none. */
  readonly progress: (progress: number, total: number, message: string) => Effect.Effect<void>
}

export class ToolFailure extends Schema.TaggedError<ToolFailure>()("ToolFailure", {
  code: Schema.String,
  message: Schema.String,
  details: Schema.optional(Schema.Unknown)
}) {}

export interface ToolResult {
  readonly structured: Record<string, unknown>
  readonly summary: string
}

export type ToolServices = Search | Catalogue | Lookups | RateLimiter | AppConfig | Market | Tools
type Services = ToolServices

export interface AgentTool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: ObjectJsonSchema
  readonly outputSchema: ObjectJsonSchema
  /** Decodes the arguments, then runs. */
  readonly call: (args: unknown, caller: Caller) => Effect.Effect<ToolResult, ToolFailure, Services>
}

export const TOOL_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true
} as const

export const tool = <I, IE, O, OE>(spec: {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly input: Schema.Schema<I, IE>
  readonly output: Schema.Schema<O, OE>
  readonly run: (
    input: I,
    caller: Caller
  ) => Effect.Effect<{ readonly value: O; readonly summary: string }, ToolFailure, Services>
}): AgentTool => {
  const decode = Schema.decodeUnknown(spec.input, { onExcessProperty: "error" })
  const encode = Schema.encode(spec.output)
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: objectJsonSchema(spec.input),
    outputSchema: objectJsonSchema(spec.output),
    call: (args, caller) =>
      Effect.gen(function*() {
        const input = yield* decode(args ?? {}).pipe(
          Effect.mapError((e) =>
            new ToolFailure({
              code: "invalid_arguments",
              message: `Invalid arguments: ${ParseResult.TreeFormatter.formatErrorSync(e)}`
            })
          )
        )
        const { summary, value } = yield* spec.run(input, caller)
        const structured = yield* Effect.orDie(encode(value))
        return { structured: structured as Record<string, unknown>, summary }
      })
  }
}

/** A service's domain error as a tool failure: its wire code, message and details. */
export const toolFailure =
  (cls: { readonly meta: DomainErrorMeta }) => (e: { readonly message: string; readonly details?: unknown }) =>
    new ToolFailure(
      e.details === undefined
        ? { code: cls.meta.code, message: e.message }
        : { code: cls.meta.code, message: e.message, details: e.details }
    )

/** Counts one call against a REST policy, per caller: the token's user, else the IP. */
export const admit = (p: RateLimitPolicy, caller: Caller) =>
  Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const key = caller.viewer._tag === "User" ? `user:${caller.viewer.userId}` : caller.ip
    const d = yield* limiter.consume(p, key)
    if (!d.allowed) {
      return yield* new ToolFailure({
        code: "rate_limited",
        message: `Rate limit of ${d.limit} calls per ${d.windowSeconds}s exceeded; retry in ${d.resetSeconds}s`,
        details: { limit: d.limit, window_seconds: d.windowSeconds, retry_after: d.resetSeconds }
      })
    }
    return d
  })
