/**
 * The idempotency store at the service level, over a real database: a stored answer is the
 * success schema's encoding and a replay is decoded by it; `done` rows keep the columns the
 * previous release replays from (`response_status`, `response_headers`), and rows that release
 * wrote replay here (rolling deploys share one database).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted, Ref, Schema } from "effect"
import { AppConfigLive } from "../../../src/platform/Config.js"
import { pgLayer } from "../../../src/platform/db/Database.js"
import { runMigrations } from "../../../src/platform/db/Migrations.js"
import { Idempotency } from "../../../src/platform/http/Idempotency.js"
import { IdempotencyKey } from "../../../src/platform/http/IdempotencyKey.js"
import { baseEnv, sharedDatabaseUrl } from "../../support/TestServer.js"

/** A success schema whose type differs from its encoding, so that both directions show. */
const Created = Schema.Struct({ id: Schema.String, created_at: Schema.DateFromString })
const at = new Date("2026-01-02T03:04:05.000Z")
/** The store's endpoint under test: the request is its own fingerprint. */
const endpoint = { success: Created, status: 201, fingerprint: (request: string) => request }
const k1 = IdempotencyKey.make("k1")

const StoreLive = Layer.unwrapScoped(Effect.gen(function*() {
  const url = yield* sharedDatabaseUrl
  const db = pgLayer({ url: Redacted.make(url) }, 2)
  const config = AppConfigLive.pipe(
    Layer.provide(
      Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ ...baseEnv, DATABASE_URL: url }))))
    )
  )
  const migrated = Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(db))
  return Idempotency.Live.pipe(Layer.provideMerge(migrated), Layer.provideMerge(config))
}))

const rowOf = (scope: string, key: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`select state, response_status, response_body, response_headers from idempotency_keys
          where scope = ${scope} and key = ${key}`
  ).pipe(Effect.map((rows) => rows[0]))

describe("Idempotency store", () => {
  layer(StoreLive, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("stores the encoded answer with the previous release's columns, and replays it decoded", () =>
      Effect.gen(function*() {
        const keys = (yield* Idempotency).endpoint(endpoint)
        const runs = yield* Ref.make(0)
        const work = Effect.as(Ref.update(runs, (n) => n + 1), { id: "c_1", created_at: at })
        const options = { scope: "test:a", key: k1, request: "f1" }

        const first = yield* keys.run(options, work)
        expect(first).toEqual({ replayed: false, value: { id: "c_1", created_at: at } })
        expect(yield* rowOf("test:a", "k1")).toEqual({
          state: "done",
          response_status: 201,
          response_body: { id: "c_1", created_at: "2026-01-02T03:04:05.000Z" },
          response_headers: {}
        })

        const again = yield* keys.run(options, work)
        expect(again).toEqual({ replayed: true, value: { id: "c_1", created_at: at } })
        expect(yield* Ref.get(runs)).toBe(1)

        const other = yield* Effect.flip(keys.run({ ...options, request: "f2" }, work))
        expect(other).toMatchObject({ _tag: "Conflict", code: "conflict" })
      }))

    it.effect("replays a row written by the previous release", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // What the previous release's `complete` wrote: the body as JSON text, headers `{}`.
        yield* sql`insert into idempotency_keys
                     (scope, key, fingerprint, state, response_status, response_body, response_headers,
                      locked_until, expires_at)
                   values ('test:old', 'k1', 'f1', 'done', 201,
                           ${JSON.stringify({ id: "c_old", created_at: "2026-01-02T03:04:05.000Z" })},
                           ${JSON.stringify({})}, now(), now() + interval '1 day')`
        const keys = (yield* Idempotency).endpoint(endpoint)
        const replay = yield* keys.run(
          { scope: "test:old", key: k1, request: "f1" },
          Effect.dieMessage("the work must not run again")
        )
        expect(replay).toEqual({ replayed: true, value: { id: "c_old", created_at: at } })
      }))

    it.effect("a failed attempt releases the key; a held one answers idempotency_in_progress", () =>
      Effect.gen(function*() {
        const keys = (yield* Idempotency).endpoint(endpoint)
        const options = { scope: "test:b", key: k1, request: "f1" }
        const failed = yield* Effect.flip(keys.run(options, Effect.fail("nope" as const)))
        expect(failed).toBe("nope")
        expect(yield* rowOf("test:b", "k1")).toBeUndefined()

        const sql = yield* SqlClient.SqlClient
        yield* sql`insert into idempotency_keys (scope, key, fingerprint, state, locked_until, expires_at)
                   values ('test:b', 'k2', 'f1', 'in_flight', now() + interval '3 seconds', now() + interval '1 day')`
        const held = yield* Effect.flip(
          keys.run({ ...options, key: IdempotencyKey.make("k2") }, Effect.dieMessage("held"))
        )
        expect(held).toMatchObject({ code: "idempotency_in_progress", details: { retry_after: 3 } })
      }))
  })
})
