/**
 * One `SqlClient` for the whole service, from `@effect/sql-pg`.
 *
 * - `DATABASE_URL` set: that PostgreSQL server.
 * - unset: an embedded PostgreSQL (PGlite, persisted under `DATA_DIR/pg`, or in memory when
 *   `DATA_DIR=:memory:`) served on a loopback socket by `@electric-sql/pglite-socket`, so the very
 *   same pg driver and SQL run in both cases. It starts and stops with the layer's scope.
 *
 * Type decisions (made once, here): `int8` and `numeric` decode to JavaScript numbers (money is
 * integer cents in `bigint` columns; 2^53 cents is far beyond any sale), `timestamptz` to `Date`.
 */
import { PgClient } from "@effect/sql-pg"
import type { SqlError } from "@effect/sql/SqlError"
import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect, Layer, Option, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import pg from "pg"
import { AppConfig } from "./Config.js"
import { GroupedQueryQueue } from "./PgliteQueue.js"

const INT8 = 20
const NUMERIC = 1700

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: any) => {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => (value === null ? null : Number(value))
    return pg.types.getTypeParser(oid, format)
  }) as pg.CustomTypesConfig["getTypeParser"]
}

export interface EmbeddedPostgres {
  readonly host: string
  readonly port: number
}

/**
 * Start PGlite and serve it on 127.0.0.1 (ephemeral port). Used by the service when no
 * DATABASE_URL is given, and by tests that need a database other processes can reach.
 */
export const startEmbedded = (dataDir: string | ":memory:") =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let dir: string | undefined
      if (dataDir !== ":memory:") {
        dir = Path.resolve(dataDir, "pg")
        Fs.mkdirSync(Path.dirname(dir), { recursive: true })
      }
      const db = await PGlite.create({ dataDir: dir, extensions: { pg_trgm } })
      // PGlite runs one statement at a time whatever the number of sockets, so connections are
      // cheap; the limit only has to exceed what every process sharing it may open (pools plus
      // the sessions singletons reserve). Over it, the server answers "Too many connections".
      const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 64 })
      ;(server as any).queryQueue = new GroupedQueryQueue(db) // keep each connection's messages together
      await server.start()
      const address = (server as any).server?.address?.()
      const port: number = typeof address === "object" && address ? address.port : Number(server.getServerConn().split(":").pop())
      return { db, server, host: "127.0.0.1", port }
    }),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop().catch(() => undefined)
        await db.close().catch(() => undefined)
      })
  )

export const pgLayer = (
  options: { readonly url: Redacted.Redacted } | { readonly host: string; readonly port: number },
  maxConnections = 10
): Layer.Layer<PgClient.PgClient | import("@effect/sql").SqlClient.SqlClient, SqlError> =>
  PgClient.layer({
    ...("url" in options
      ? { url: options.url }
      : {
        host: options.host,
        port: options.port,
        username: "postgres",
        password: Redacted.make("postgres"),
        database: "postgres"
      }),
    maxConnections,
    types,
    applicationName: "domain-marketplace"
  })

/** The service's database: DATABASE_URL, or the embedded PostgreSQL. */
export const DatabaseLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) {
      return pgLayer({ url: config.databaseUrl.value })
    }
    const embedded = yield* startEmbedded(config.dataDir === ":memory:" ? ":memory:" : config.dataDir)
    yield* Effect.logInfo("embedded PostgreSQL started").pipe(
      Effect.annotateLogs({ port: embedded.port, dataDir: config.dataDir })
    )
    // PGlite runs one statement at a time; a small pool is all it can use.
    return pgLayer({ host: embedded.host, port: embedded.port }, 8)
  })
)
