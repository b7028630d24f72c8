/**
 * `Idempotency-Key` handling shared by every endpoint that takes one (orders, WHOIS lookups, …).
 *
 * - The first request with a key claims it (`in_flight`) in its own committed statement, so a
 *   concurrent twin — on any replica — sees the claim and gets 409 `idempotency_in_progress` with
 *   `Retry-After`. The claim is a lease (IDEMPOTENCY_LEASE, default 5 s) renewed while the work
 *   runs, so a request whose process crashed frees its key within seconds.
 * - When the work succeeds its value is stored (`done`), encoded by the endpoint's success schema,
 *   and every later request with the same key and the same fingerprint gets it back decoded by
 *   that schema: the handler returns it like a fresh value, so a replay reaches the wire through
 *   the endpoint's own encoding, with the same bytes.
 * - The fingerprint ("the same request") is computed here, from the decoded request the handler
 *   passes, by the endpoint's own rule (`payloadFingerprint` for a JSON write); no handler reads
 *   the raw body for it. Same key, other fingerprint → 409 `conflict`. A failed attempt releases
 *   the key.
 * - The key itself arrives decoded (`IdempotencyKey`, ./IdempotencyKey.ts); without one (where it
 *   is optional) the work just runs.
 * - `transactional: true` runs the work and the `done` update in one transaction: if the process
 *   dies mid-way nothing is committed, and once the claim's lease lapses a retry runs the work
 *   again — exactly once overall.
 * - The answer echoes `Idempotency-Key`, and a replay carries `Idempotent-Replayed: true` (set
 *   here, for every endpoint).
 *
 * Keys are scoped (e.g. per partner credential) and expire after `ttl`. A database failure is a
 * defect here, once.
 *
 * Rolling deploys: a `done` row also gets `response_status` (the endpoint's success status) and
 * `response_headers = {}`, which this code never reads but replicas of the previous release
 * replay from (`response_status ?? 200`). Keep writing them until no such replica can run.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Context, Duration, Effect, Fiber, Layer, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { canonicalJson } from "../../domain/CanonicalJson.js"
import { AppConfig } from "../Config.js"
import { transactionOf } from "../db/SqlTransaction.js"
import { janitorOf } from "../jobs/Janitor.js"
import { ConflictError } from "./Errors.js"
import type { IdempotencyKey } from "./IdempotencyKey.js"
import { addResponseHeaders } from "./ResponseHeaders.js"

/** The endpoint whose answers are stored and replayed. */
export interface IdempotentEndpoint<A, I, P> {
  /** Its success schema (the one given to `addSuccess`). */
  readonly success: Schema.Schema<A, I>
  /** Its success status (the one given to `addSuccess`), stored for the previous release. */
  readonly status: number
  /**
   * What makes two requests with one key "the same": the fingerprint of the decoded request
   * (`payloadFingerprint(operation, PayloadSchema)` for a JSON write). Stored with the key, so a
   * rule that changes makes the keys of the previous release conflict until they expire.
   */
  readonly fingerprint: (request: P) => string
}

export interface IdempotencyOptions<P> {
  /** Namespace of the key, e.g. `orders:<credential id>` or `whois:<ip>`. */
  readonly scope: string
  /** The decoded key; undefined (an optional key not sent): the work just runs. */
  readonly key: IdempotencyKey | undefined
  /** The decoded request, fingerprinted by the endpoint's rule. */
  readonly request: P
  /** How long a stored response is replayed. Default 7 days. */
  readonly ttl?: Duration.DurationInput
  /** How long a claim blocks twins before a crashed attempt may be retried. Default IDEMPOTENCY_LEASE. */
  readonly lease?: Duration.DurationInput
  /** Run the work and the stored response in one transaction (for database writes). */
  readonly transactional?: boolean
}

export interface IdempotentResult<A> {
  /** True when `value` is the stored answer of an earlier request with the key. */
  readonly replayed: boolean
  readonly value: A
}

/** The keys of one endpoint. */
export interface IdempotentRunner<A, P> {
  /** `work` once per key; a repeat with the same fingerprint gets its stored value back. */
  readonly run: <E, R>(
    options: IdempotencyOptions<P>,
    work: Effect.Effect<A, E, R>
  ) => Effect.Effect<IdempotentResult<A>, E | ConflictError, R>
}

export interface IdempotencyShape {
  /** The runner of one endpoint: build it once, with the endpoint's handlers. */
  readonly endpoint: <A, I, P>(endpoint: IdempotentEndpoint<A, I, P>) => IdempotentRunner<A, P>
}

/** SHA-256 hex of the parts, separated so that ("ab","c") ≠ ("a","bc"). */
export const fingerprint = (...parts: ReadonlyArray<string>): string => {
  const h = createHash("sha256")
  for (const p of parts) h.update(String(p.length)).update(":").update(p)
  return h.digest("hex")
}

/**
 * The fingerprint rule of a JSON write (`operation` is `METHOD path`): its decoded payload,
 * encoded again by the payload schema, as canonical JSON (key order, whitespace and number
 * spelling do not matter; src/domain/CanonicalJson.ts). Fields the schema does not know are not
 * part of the request, so they do not make it another one.
 *
 * Rows stored before this rule hashed the raw body's canonical JSON: the same string whenever
 * the body held only the schema's fields (its decoding changes no value), so their keys still
 * replay; a body that carried unknown fields stops matching its key, which then answers 409
 * until it expires (7 days).
 */
export const payloadFingerprint = <P, PI>(operation: string, payload: Schema.Schema<P, PI>) => {
  const [method = "", path = ""] = operation.split(" ")
  const encode = Schema.encodeSync(payload)
  return (request: P): string => fingerprint(method, path, canonicalJson(JSON.stringify(encode(request))))
}

const KeyOf = Schema.Struct({ scope: Schema.String, key: Schema.String })
const ClaimOf = Schema.Struct({
  ...KeyOf.fields,
  fingerprint: Schema.String,
  leaseMs: Schema.Number,
  ttlMs: Schema.Number
})
const Claimed = Schema.Struct({ key: Schema.String })

/** A claim still being worked on; `lease_left_ms` may be negative (lapsed, not yet reclaimed). */
const InFlightRow = Schema.Struct({
  state: Schema.Literal("in_flight"),
  fingerprint: Schema.String,
  lease_left_ms: Schema.Number
})

/**
 * A finished request: `response_body` is what the endpoint's success schema encoded (decoded by
 * it only once the fingerprint matched: another request's key is a 409 whatever it stored).
 */
const DoneRow = Schema.Struct({
  state: Schema.Literal("done"),
  fingerprint: Schema.String,
  response_body: Schema.Unknown
})

const KeyRow = Schema.Union(InFlightRow, DoneRow)

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const defaultLease = (yield* AppConfig).idempotencyLease
  const transaction = transactionOf(sql)

  const claim = SqlSchema.findOne({
    Request: ClaimOf,
    Result: Claimed,
    execute: (c) =>
      sql`
        insert into idempotency_keys (scope, key, fingerprint, state, locked_until, expires_at)
        values (${c.scope}, ${c.key}, ${c.fingerprint}, 'in_flight',
                now() + ${`${c.leaseMs} milliseconds`}::interval, now() + ${`${c.ttlMs} milliseconds`}::interval)
        on conflict (scope, key) do update
          set fingerprint = excluded.fingerprint, state = 'in_flight', locked_until = excluded.locked_until,
              expires_at = excluded.expires_at, created_at = now(),
              response_status = null, response_body = null, response_headers = null
          where idempotency_keys.expires_at < now()
             or (idempotency_keys.state = 'in_flight' and idempotency_keys.locked_until < now()
                 and idempotency_keys.fingerprint = excluded.fingerprint)
        returning key`
  })

  /** Pushes the lease forward (on its own connection, outside any transaction). */
  const renewOnce = SqlSchema.void({
    Request: ClaimOf,
    execute: (c) =>
      sql`update idempotency_keys set locked_until = now() + ${`${c.leaseMs} milliseconds`}::interval
          where scope = ${c.scope} and key = ${c.key} and state = 'in_flight' and fingerprint = ${c.fingerprint}`
  })

  const release = SqlSchema.void({
    Request: KeyOf,
    execute: (k) =>
      sql`delete from idempotency_keys where scope = ${k.scope} and key = ${k.key} and state = 'in_flight'`
  })

  const existing = SqlSchema.findOne({
    Request: KeyOf,
    Result: KeyRow,
    execute: (k) =>
      sql`select state, fingerprint, response_body,
                 (extract(epoch from (locked_until - now())) * 1000)::bigint as lease_left_ms
          from idempotency_keys where scope = ${k.scope} and key = ${k.key}`
  })

  const endpoint = <A, I, P>(
    { fingerprint: fingerprintOf, status, success }: IdempotentEndpoint<A, I, P>
  ): IdempotentRunner<A, P> => {
    const decodeStored = Schema.decodeUnknown(success)
    const complete = SqlSchema.void({
      Request: Schema.Struct({ ...KeyOf.fields, status: Schema.Number, body: Schema.parseJson(success) }),
      execute: (d) =>
        sql`update idempotency_keys
            set state = 'done', response_status = ${d.status}, response_body = ${d.body}, response_headers = '{}'
            where scope = ${d.scope} and key = ${d.key}`
    })

    const run = <E, R>(
      o: IdempotencyOptions<P>,
      work: Effect.Effect<A, E, R>
    ): Effect.Effect<IdempotentResult<A>, E | ConflictError, R> =>
      Effect.gen(function*() {
        if (o.key === undefined) return { replayed: false, value: yield* work }
        const key: string = o.key
        const ttlMs = Duration.toMillis(o.ttl ?? Duration.days(7))
        const leaseMs = Duration.toMillis(o.lease ?? defaultLease)
        const c = { scope: o.scope, key, fingerprint: fingerprintOf(o.request), leaseMs, ttlMs }
        for (let attempt = 0; attempt < 3; attempt++) {
          if (Option.isSome(yield* Effect.orDie(claim(c)))) {
            // Forked before any transaction starts, so the renewals commit on their own.
            const renewal = yield* Effect.forkDaemon(
              renewOnce(c).pipe(
                Effect.ignore,
                Effect.delay(Duration.millis(Math.max(100, Math.floor(leaseMs / 3)))),
                Effect.forever
              )
            )
            const done = Effect.tap(
              work,
              (value) => Effect.orDie(complete({ scope: o.scope, key, status, body: value }))
            )
            const value = yield* (o.transactional ? transaction(done) : done).pipe(
              Effect.ensuring(Fiber.interruptFork(renewal)),
              Effect.onError(() => Effect.ignore(release(c)))
            )
            yield* addResponseHeaders({ "idempotency-key": key })
            return { replayed: false, value }
          }
          const row = yield* Effect.orDie(existing(c))
          if (Option.isNone(row)) continue // released or expired between our two statements: claim again
          if (row.value.fingerprint !== c.fingerprint) {
            return yield* new ConflictError({
              code: "conflict",
              message:
                "This Idempotency-Key was already used with a different request; use a new key for a new operation."
            })
          }
          if (row.value.state === "in_flight") {
            const retryAfter = Math.min(
              Math.max(1, Math.ceil(row.value.lease_left_ms / 1000)),
              Math.ceil(leaseMs / 1000)
            )
            yield* addResponseHeaders({ "retry-after": String(retryAfter) })
            return yield* new ConflictError({
              code: "idempotency_in_progress",
              message: `A request with this Idempotency-Key is still being processed; retry in ${retryAfter}s.`,
              details: { retry_after: retryAfter }
            })
          }
          const value = yield* Effect.orDie(decodeStored(row.value.response_body))
          yield* addResponseHeaders({ "idempotency-key": key, "idempotent-replayed": "true" })
          return { replayed: true, value }
        }
        return yield* new ConflictError({ code: "conflict", message: "Could not claim the Idempotency-Key; retry." })
      })

    return { run }
  }

  return { endpoint } satisfies IdempotencyShape
})

export class Idempotency extends Context.Tag("app/Idempotency")<Idempotency, IdempotencyShape>() {
  static readonly Live = Layer.effect(Idempotency, make)
}

/** Deletes expired keys; any replica may run it. */
export const IdempotencyJanitorLive = janitorOf(
  "idempotency",
  "10 minutes",
  SqlClient.SqlClient,
  (sql) => sql`delete from idempotency_keys where expires_at < now()`
)
