/**
 * `Idempotency-Key` handling shared by every endpoint that takes one (orders, WHOIS lookups, …).
 *
 * - The first request with a key claims it (`in_flight`) in its own committed statement, so a
 *   concurrent twin — on any replica — sees the claim and gets 409 `idempotency_in_progress` with
 *   `Retry-After`. The claim is a lease (IDEMPOTENCY_LEASE, default 5 s) renewed while the work
 *   runs, so a request whose process crashed frees its key within seconds.
 * - When the work succeeds its response is stored (`done`) and replayed to every later request
 *   with the same key and the same fingerprint (usually a hash of the body).
 * - Same key, other fingerprint → 409 `conflict`. A failed attempt releases the key.
 * - `transactional: true` runs the work and the `done` update in one transaction: if the process
 *   dies mid-way nothing is committed, and once the claim's lease lapses a retry runs the work
 *   again — exactly once overall.
 *
 * Keys are scoped (e.g. per partner credential) and expire after `ttl`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Duration, Effect, Fiber, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import { AppConfig } from "./Config.js"
import { ConflictError } from "./Errors.js"
import { janitorOf } from "./Janitor.js"
import { addResponseHeaders } from "./ResponseHeaders.js"

export interface StoredResponse {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export interface IdempotentResult {
  readonly replayed: boolean
  readonly response: StoredResponse
}

export interface IdempotencyOptions {
  /** Namespace of the key, e.g. `orders:<credential id>` or `whois:<ip>`. */
  readonly scope: string
  readonly key: string
  /** What makes two requests "the same": typically `fingerprint(method, path, body)`. */
  readonly fingerprint: string
  /** How long a stored response is replayed. Default 7 days. */
  readonly ttl?: Duration.DurationInput
  /** How long a claim blocks twins before a crashed attempt may be retried. Default IDEMPOTENCY_LEASE. */
  readonly lease?: Duration.DurationInput
  /** Run the work and the stored response in one transaction (for database writes). */
  readonly transactional?: boolean
}

/** SHA-256 hex of the parts, separated so that ("ab","c") ≠ ("a","bc"). */
export const fingerprint = (...parts: ReadonlyArray<string>): string => {
  const h = createHash("sha256")
  for (const p of parts) h.update(String(p.length)).update(":").update(p)
  return h.digest("hex")
}

/** Idempotency-Key syntax accepted by the service: 1–255 visible ASCII characters. */
export const isValidKey = (key: string) => /^[\x21-\x7e]{1,255}$/.test(key)

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const defaultLease = (yield* AppConfig).idempotencyLease

  const claim = (o: IdempotencyOptions, ttlMs: number, leaseMs: number) =>
    sql<{ key: string }>`
      insert into idempotency_keys (scope, key, fingerprint, state, locked_until, expires_at)
      values (${o.scope}, ${o.key}, ${o.fingerprint}, 'in_flight',
              now() + ${`${leaseMs} milliseconds`}::interval, now() + ${`${ttlMs} milliseconds`}::interval)
      on conflict (scope, key) do update
        set fingerprint = excluded.fingerprint, state = 'in_flight', locked_until = excluded.locked_until,
            expires_at = excluded.expires_at, created_at = now(),
            response_status = null, response_body = null, response_headers = null
        where idempotency_keys.expires_at < now()
           or (idempotency_keys.state = 'in_flight' and idempotency_keys.locked_until < now()
               and idempotency_keys.fingerprint = excluded.fingerprint)
      returning key`.pipe(Effect.map((rows) => rows.length > 0))

  const existing = (o: IdempotencyOptions) =>
    sql<{
      fingerprint: string
      state: "in_flight" | "done"
      response_status: number | null
      response_body: unknown
      response_headers: Record<string, string> | null
      lease_left_ms: number | null
    }>`select fingerprint, state, response_status, response_body, response_headers,
              (extract(epoch from (locked_until - now())) * 1000)::bigint as lease_left_ms
       from idempotency_keys where scope = ${o.scope} and key = ${o.key}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

  /** Pushes the lease forward while the work runs (on its own connection, outside any transaction). */
  const renew = (o: IdempotencyOptions, leaseMs: number) =>
    sql`update idempotency_keys set locked_until = now() + ${`${leaseMs} milliseconds`}::interval
        where scope = ${o.scope} and key = ${o.key} and state = 'in_flight' and fingerprint = ${o.fingerprint}`.pipe(
      Effect.ignore,
      Effect.delay(Duration.millis(Math.max(100, Math.floor(leaseMs / 3)))),
      Effect.forever
    )

  const complete = (o: IdempotencyOptions, r: StoredResponse) =>
    sql`update idempotency_keys
        set state = 'done', response_status = ${r.status}, response_body = ${JSON.stringify(r.body ?? null)},
            response_headers = ${JSON.stringify(r.headers ?? {})}
        where scope = ${o.scope} and key = ${o.key}`

  const release = (o: IdempotencyOptions) =>
    sql`delete from idempotency_keys where scope = ${o.scope} and key = ${o.key} and state = 'in_flight'`.pipe(
      Effect.ignore
    )

  const run = <E, R>(
    o: IdempotencyOptions,
    work: Effect.Effect<StoredResponse, E, R>
  ): Effect.Effect<IdempotentResult, E | ConflictError | SqlError, R> =>
    Effect.gen(function*() {
      const ttlMs = Duration.toMillis(o.ttl ?? Duration.days(7))
      const leaseMs = Duration.toMillis(o.lease ?? defaultLease)
      for (let attempt = 0; attempt < 3; attempt++) {
        if (yield* claim(o, ttlMs, leaseMs)) {
          // Forked before any transaction starts, so the renewals commit on their own.
          const renewal = yield* Effect.forkDaemon(renew(o, leaseMs))
          const guarded = o.transactional
            ? sql.withTransaction(Effect.tap(work, (r) => complete(o, r)))
            : Effect.tap(work, (r) => complete(o, r))
          const response = yield* guarded.pipe(
            Effect.ensuring(Fiber.interruptFork(renewal)),
            Effect.onError(() => release(o))
          )
          return { replayed: false, response }
        }
        const row = yield* existing(o)
        if (Option.isNone(row)) continue // released or expired between our two statements: claim again
        if (row.value.fingerprint !== o.fingerprint) {
          return yield* new ConflictError({
            code: "conflict",
            message:
              "This Idempotency-Key was already used with a different request; use a new key for a new operation."
          })
        }
        if (row.value.state === "in_flight") {
          const retryAfter = Math.min(
            Math.max(1, Math.ceil((row.value.lease_left_ms ?? 1000) / 1000)),
            Math.ceil(leaseMs / 1000)
          )
          yield* addResponseHeaders({ "retry-after": String(retryAfter) })
          return yield* new ConflictError({
            code: "idempotency_in_progress",
            message: `A request with this Idempotency-Key is still being processed; retry in ${retryAfter}s.`,
            details: { retry_after: retryAfter }
          })
        }
        return {
          replayed: true,
          response: {
            status: row.value.response_status ?? 200,
            body: row.value.response_body,
            headers: row.value.response_headers ?? {}
          }
        }
      }
      return yield* new ConflictError({ code: "conflict", message: "Could not claim the Idempotency-Key; retry." })
    })

  return { run }
})

export class Idempotency extends Context.Tag("app/Idempotency")<Idempotency, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Idempotency, make)
}

/** Deletes expired keys; any replica may run it. */
export const IdempotencyJanitorLive = janitorOf(
  "idempotency",
  "10 minutes",
  SqlClient.SqlClient,
  (sql) => sql`delete from idempotency_keys where expires_at < now()`
)

/**
 * The operations that honour `Idempotency-Key` (by `METHOD path-template`) and whether they
 * require it; `replays` says whether a repeat answers the stored response with
 * `Idempotent-Replayed: true`. The OpenAPI document declares the header pair from this list
 * (src/platform/OpenApiHeaders.ts); add an operation here when its handler starts taking a key.
 */
export const IDEMPOTENT_OPERATIONS: ReadonlyArray<
  { readonly operation: string; readonly required: boolean; readonly replays: boolean }
> = [
  { operation: "POST /api/partner/v1/orders", required: true, replays: true },
  { operation: "POST /api/tools/whois", required: false, replays: true },
  { operation: "POST /api/domain/search", required: false, replays: false }
]
