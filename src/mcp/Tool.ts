/**
 * What an agent tool is: a public operation's record (../operations/Operation.ts) as MCP offers
 * it. Every tool does the same three things: count the call against its REST endpoint's limit
 * (`admitCall`, per IP as every door counts), decode its arguments with the record's input schema
 * (an unknown or malformed argument is `invalid_arguments`), and answer a service's refusal as a
 * `ToolFailure` with that error's wire code (`failureOf`). The list of tools is ./Tools.ts.
 */
import { Effect, Option, ParseResult, Schema } from "effect"
import { admitCall, type Operation, type Who } from "../operations/Operation.js"
import type { DomainErrorMeta } from "../platform/http/Errors.js"
import type { RateLimiter } from "../platform/http/RateLimit.js"
import { type ObjectJsonSchema, objectJsonSchema } from "./Schemas.js"

/** Who calls, as far as a tool needs to know. */
export type Caller = Who

export class ToolFailure extends Schema.TaggedError<ToolFailure>()("ToolFailure", {
  code: Schema.String,
  message: Schema.String,
  details: Schema.optional(Schema.Unknown)
}) {}

export interface ToolResult {
  readonly structured: Record<string, unknown>
  readonly summary: string
}

export interface AgentTool<R = never> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: ObjectJsonSchema
  readonly outputSchema: ObjectJsonSchema
  /** Counts the call, decodes the arguments, then runs. */
  readonly call: (args: unknown, caller: Caller) => Effect.Effect<ToolResult, ToolFailure, R | RateLimiter>
}

export const TOOL_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true
} as const

/**
 * A refusal as a tool failure: a service's `DomainError` (its class's wire code) or a wire error
 * of the edge (`rate_limited`, `validation_error`: its own code), with message and details.
 */
const failureOf = (e: unknown): Option.Option<ToolFailure> => {
  if (e instanceof ToolFailure) return Option.some(e)
  if (typeof e !== "object" || e === null) return Option.none()
  const error = e as { readonly code?: unknown; readonly message?: unknown; readonly details?: unknown }
  const code = (e.constructor as { readonly meta?: DomainErrorMeta }).meta?.code ??
    (typeof error.code === "string" ? error.code : undefined)
  if (code === undefined || typeof error.message !== "string") return Option.none()
  return Option.some(
    new ToolFailure(
      error.details === undefined
        ? { code, message: error.message }
        : { code, message: error.message, details: error.details }
    )
  )
}

/** The tool of an operation: its name, words and schemas, and the three steps every tool takes. */
export const toolOf = <I, A, E, R>(op: Operation<I, A, E, R>): AgentTool<R> => {
  const decode = Schema.decodeUnknown(op.input, { onExcessProperty: "error" })
  const encode = Schema.encode(op.output)
  return {
    name: op.name,
    title: op.title,
    description: op.description,
    inputSchema: objectJsonSchema(op.input),
    outputSchema: objectJsonSchema(op.output),
    call: (args, caller) =>
      Effect.gen(function*() {
        yield* admitCall(op, caller)
        const input = yield* decode(args ?? {}).pipe(
          Effect.mapError((e) =>
            new ToolFailure({
              code: "invalid_arguments",
              message: `Invalid arguments: ${ParseResult.TreeFormatter.formatErrorSync(e)}`
            })
          )
        )
        const value = yield* op.run(input, caller)
        const structured = yield* Effect.orDie(encode(value))
        return { structured: structured as Record<string, unknown>, summary: op.summarize(value, input) }
      }).pipe(
        // A refusal the tool can name is a ToolFailure; any other failure is a defect.
        Effect.catchAll((e) => Option.match(failureOf(e), { onNone: () => Effect.die(e), onSome: Effect.fail }))
      )
  }
}
