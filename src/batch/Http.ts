/**
 * Handlers of the batch endpoints. Each operation runs anonymously with the caller's IP and calls
 * the service of its single call (src/batch/Operations.ts). An operation's failure is its result,
 * never the batch's.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Either, FiberRef } from "effect"
import { Api } from "../app/Api.js"
import { AppConfig } from "../platform/Config.js"
import { clientIpOf } from "../platform/http/ClientIp.js"
import { CurrentRequestId, errorWire } from "../platform/http/Errors.js"
import { BatchCatalogue, BatchResponse, BatchResult, MAX_OPERATIONS } from "./Api.js"
import { InvalidParams, UnknownOperation } from "./Errors.js"
import {
  type BatchCaller,
  type BatchOperation,
  failed,
  type OperationResult,
  OPERATIONS,
  scalars
} from "./Operations.js"

/** Operations of one batch run at most this many at a time. */
const CONCURRENCY = 5

export const catalogue = (rateLimits: Readonly<Record<string, number>>) =>
  new BatchCatalogue({
    max_operations: MAX_OPERATIONS,
    min_operations: 1,
    operations: Object.entries(OPERATIONS).map(([op, o]) => ({
      op,
      summary: o.summary,
      endpoint: o.endpoint,
      available: true,
      params: o.params,
      rate_limit: o.rateLimit === null
        ? null
        : {
          policy: o.rateLimit.id,
          limit: rateLimits[o.rateLimit.id] ?? o.rateLimit.limit,
          window_seconds: o.rateLimit.windowSeconds,
          scope: "ip" as const
        }
    })),
    example: {
      operations: [
        { id: "a", op: "search_domain", params: { q: "example.com" } },
        { id: "b", op: "tld_registration_price", params: { tld: "com", op: "register" } },
        { id: "c", op: "tld_requirements", params: { tld: "io" } }
      ]
    },
    notes: [
      "Each operation runs the handler of its single call, without credentials, and counts against that call's per-IP rate limit.",
      "Results come in request order; each has its own status and body. count = results, failed = results with status >= 400.",
      `A malformed envelope (not 1 to ${MAX_OPERATIONS} operations) is 400; an unknown op or unusable params fail only that result.`
    ]
  })

/**
 * What an operation answers when it dies (a bug) and did not say otherwise: a 500 for that
 * operation only. (search_domain answers this, as it always has; the operations that were once
 * dispatched through HTTP answer what their endpoint answers, see `diedLikeItsEndpoint`.)
 */
const unexpected: OperationResult = {
  status: 500,
  body: { error: { code: "internal_error", message: "Unexpected error; retry with exponential back-off" } }
}

export const BatchHttpLive = HttpApiBuilder.group(Api, "batch", (handlers) =>
  Effect.gen(function*() {
    const config = yield* AppConfig

    const run = (definition: BatchOperation, params: Readonly<Record<string, string>>, caller: BatchCaller) =>
      definition.run(params, caller).pipe(
        Effect.catchAllDefect((defect) =>
          Effect.as(Effect.logError("batch operation failed unexpectedly", defect), unexpected)
        )
      )

    return handlers
      .handle("batchCatalogue", () => Effect.succeed(catalogue(config.rateLimits)))
      .handle("runBatch", ({ payload }) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const caller: BatchCaller = {
            ip: clientIpOf(request, config.trustProxy),
            requestId: yield* FiberRef.get(CurrentRequestId)
          }
          const results = yield* Effect.forEach(payload.operations, (operation, index) =>
            Effect.gen(function*() {
              const id = operation.id ?? String(index)
              const definition = Object.hasOwn(OPERATIONS, operation.op) ? OPERATIONS[operation.op] : undefined
              const result = definition === undefined
                ? yield* failed(errorWire(UnknownOperation), UnknownOperation.meta.status)(
                  UnknownOperation.of(operation.op)
                )
                : yield* Either.match(scalars(operation.params ?? {}, definition.params), {
                  onLeft: failed(errorWire(InvalidParams), InvalidParams.meta.status),
                  onRight: (params) => run(definition, params, caller)
                })
              return new BatchResult({ id, op: operation.op, ...result })
            }), { concurrency: CONCURRENCY })
          return new BatchResponse({
            results,
            count: results.length,
            failed: results.filter((r) => r.status >= 400).length
          })
        }))
  }))
