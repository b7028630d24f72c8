/**
 * Handlers of the batch endpoints. Each operation becomes a synthetic anonymous request run
 * through the service's own HttpApp (src/batch/Dispatch.ts) with the caller's IP.
 */
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect, Either, FiberRef } from "effect"
import { Api } from "../app/Api.js"
import { AppConfig } from "../platform/Config.js"
import { CurrentRequestId } from "../platform/Errors.js"
import { clientIpOf } from "../platform/ClientIp.js"
import { enforce } from "../platform/RateLimit.js"
import { BatchCatalogue, BatchResponse, BatchResult, limits } from "./Api.js"
import { SelfApp } from "./Dispatch.js"
import { MAX_OPERATIONS, OPERATIONS } from "./Operations.js"

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
      available: o.endpoint !== null,
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

export const BatchHttpLive = HttpApiBuilder.group(Api, "batch", (handlers) =>
  Effect.gen(function*() {
    const self = yield* SelfApp
    const config = yield* AppConfig
    return handlers
      .handle("batchCatalogue", () => Effect.succeed(catalogue(config.rateLimits)))
      .handle("runBatch", ({ payload }) =>
        Effect.gen(function*() {
          yield* enforce(limits.batch)
          const request = yield* HttpServerRequest.HttpServerRequest
          const callerIp = clientIpOf(request, config.trustProxy)
          const requestId = yield* FiberRef.get(CurrentRequestId)
          const refusal = (status: number, code: string, message: string) => ({
            status,
            body: { error: { code, message, request_id: requestId } }
          })
          const results = yield* Effect.forEach(payload.operations, (operation, index) =>
            Effect.gen(function*() {
              const id = operation.id ?? String(index)
              const definition = Object.hasOwn(OPERATIONS, operation.op) ? OPERATIONS[operation.op] : undefined
              if (definition === undefined) {
                const r = refusal(400, "unknown_operation", `Unknown operation "${operation.op}"; see GET /api/batch for the list`)
                return new BatchResult({ id, op: operation.op, ...r })
              }
              const params = operation.params ?? {}
              const synthetic = definition.toRequest(params)
              if (Either.isLeft(synthetic)) {
                const r = refusal(synthetic.left.status, synthetic.left.code, synthetic.left.message)
                return new BatchResult({ id, op: operation.op, ...r })
              }
              const response = yield* self.dispatch(synthetic.right, callerIp, config.trustProxy)
              return new BatchResult({ id, op: operation.op, status: response.status, body: definition.toBody(response, params) })
            }), { concurrency: CONCURRENCY })
          return new BatchResponse({ results, count: results.length, failed: results.filter((r) => r.status >= 400).length })
        }))
  }))
