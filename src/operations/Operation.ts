/**
 * A public operation, declared once beside its service (docs/architecture.md, "One operation,
 * three doors"): its name, what it does, the arguments an agent or a batch gives (decoded once,
 * by `input`), its answer's schema, the REST endpoint's rate-limit policy, and the effect that
 * runs it. The doors derive from the record: the agent tool (mcp/Tools.ts), the batch operation
 * (batch/Operations.ts); the REST handler calls the same `run` or, for a stream, the same service.
 *
 * Every door counts a call the same way (`admitCall`): the REST endpoint's policy, keyed by the
 * caller's IP as the edge keys it (platform/http/RateLimitEdge.ts), so a call through any door
 * spends the same counter. An operation whose service counts its own quota (WHOIS: per account for
 * a signed-in caller) has no policy here.
 *
 * A refusal is the service's `DomainError` (its class names the wire code and status); each door
 * answers it in its own envelope.
 */
import { Effect, type Schema } from "effect"
import type { Viewer } from "../identity/Viewer.js"
import { enforceWith, RateLimiter, type RateLimitPolicy } from "../platform/http/RateLimit.js"

/** Who calls, as far as an operation needs to know. */
export interface Who {
  readonly viewer: Viewer
  /** The client IP through the trusted proxies (the one rate-limit key). */
  readonly ip: string
  readonly requestId: string
  /** Reports progress (rows as they are known); a no-op where the door shows none. */
  readonly progress: (progress: number, total: number, message: string) => Effect.Effect<void>
}

export interface Operation<I, A, E, R> {
  /** The agent tool's and the batch operation's name, e.g. `tld_registration_price`. */
  readonly name: string
  readonly title: string
  readonly description: string
  /** The REST endpoint with the same rule, e.g. `GET /api/pricing/tld`. */
  readonly endpoint: string
  /** The arguments as agents and batches give them; decoded once, before `run`. */
  readonly input: Schema.Schema<I, any>
  readonly output: Schema.Schema<A, any>
  /** The REST endpoint's limit; null when the operation's service counts its own quota. */
  readonly rateLimit: RateLimitPolicy | null
  readonly run: (input: I, who: Who) => Effect.Effect<A, E, R>
  /** One line per result, for an agent to read (the structured answer is `output`). */
  readonly summarize: (value: A, input: I) => string
}

/** Any operation, as the doors list them. */
export type AnyOperation = Operation<any, any, any, any>

/** Declares an operation (its types inferred from its schemas and `run`). */
export const operation = <I, A, E, R>(spec: Operation<I, A, E, R>): Operation<I, A, E, R> => spec

/**
 * Counts one call of `op` against its REST endpoint's policy, keyed by the caller's IP: the 429
 * `rate_limited` error when over (with the RateLimit headers on whatever response follows).
 */
export const admitCall = (op: { readonly rateLimit: RateLimitPolicy | null }, who: Pick<Who, "ip">) =>
  op.rateLimit === null
    ? Effect.void
    : Effect.flatMap(RateLimiter, (limiter) => Effect.asVoid(enforceWith(limiter, op.rateLimit!, who.ip)))
