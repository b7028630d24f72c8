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
import * as PgClient from "@effect/sql-pg/PgClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import pg from "pg"
import { AppConfig } from "../Config.js"
import { registerPool, unregisterPool } from "../observability/Metrics.js"
import { type DatabaseUnreachable, probeDatabase } from "./DatabaseReach.js"
import * as DataDirLock from "./DataDirLock.js"
import { cancellingPool } from "./PgCancel.js"

const INT8 = 20
const NUMERIC = 1700

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: any) => {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => (value === null ? null : Number(value))
    return pg.types.getTypeParser(oid, format)
  }) as pg.CustomTypesConfig["getTypeParser"]
}

interface Pglite {
  dumpDataDir(compression?: "none"): Promise<Blob>
}

/**
 * The embedded server's buffer cache. PostgreSQL's initdb writes 128 MB, which PGlite allocates and
 * zeroes in WebAssembly memory at every start: most of a start's CPU (a migrated test database
 * loaded in 1.48–1.75 s of CPU with it, 0.90–1.06 s with 16 MB, on 2026-11-29's machine, about
 * four times slower than usual) and resident memory the embedded database never uses well. Its pages live in memory already (in memory: the data
 * directory itself; on disk: the operating system's cache), and its databases are small.
 */
const EMBEDDED_SHARED_BUFFERS = "16MB"

/**
 * A data directory image (a tar `dumpDataDir` wrote) as the `Blob` PGlite's `loadDataDir` takes,
 * handing over the bytes it already holds. Node 20's own `Blob.arrayBuffer()` reads a 43 MB blob
 * as a stream of small chunks and joins them: about 0.4 s of CPU a load on these machines, for a
 * copy. Every load may share the bytes: PGlite only reads them (its files are copies).
 */
export class DataDirImage extends Blob {
  constructor(readonly data: Uint8Array) {
    super([])
  }
  /** The image of a running database's data directory. */
  static async dump(db: Pglite): Promise<DataDirImage> {
    return new DataDirImage(new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer()))
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteLength, byteOffset } = this.data
    return Promise.resolve(
      byteOffset === 0 && byteLength === buffer.byteLength && buffer instanceof ArrayBuffer
        ? buffer
        : this.data.slice().buffer
    )
  }
}

/**
 * An in-memory PGlite, from a copy of a freshly initialised cluster when one is at hand.
 *
 * PGlite runs `initdb` for every new cluster: about 3 s of CPU, most of an in-memory database's
 * start-up (each test server has its own, the CLI's tests start dozens). The first process to
 * initialise one keeps a tar of the pristine data directory under `node_modules/.cache/pglite/`
 * (named by PGlite's version, written to a temporary name and renamed, so concurrent processes
 * never see half a file), and the next ones load it in well under a second. Only the empty
 * cluster is copied: every server still applies the migrations and seeds through the usual path.
 * A copy that fails to load is removed and the cluster is initialised afresh.
 */
let pristineImage: DataDirImage | undefined

const createInMemory = async <Db extends Pglite>(
  create: (options: { readonly loadDataDir?: Blob }) => Promise<Db>
): Promise<Db> => {
  const file = pristineClusterFile()
  if (file !== undefined && (pristineImage !== undefined || Fs.existsSync(file))) {
    try {
      // Read once per process (40 MB): a test worker starts many databases.
      pristineImage ??= new DataDirImage(Fs.readFileSync(file))
      return await create({ loadDataDir: pristineImage })
    } catch {
      pristineImage = undefined
      Fs.rmSync(file, { force: true })
    }
  }
  const db = await create({})
  if (file !== undefined) {
    try {
      const { data } = await DataDirImage.dump(db)
      Fs.mkdirSync(Path.dirname(file), { recursive: true })
      const partial = `${file}.${process.pid}.partial`
      Fs.writeFileSync(partial, data)
      Fs.renameSync(partial, file)
    } catch {
      // A read-only install or a full disk: the next cluster is initialised afresh too.
    }
  }
  return db
}

/** Where the pristine cluster of this PGlite version is kept; undefined when PGlite's folder is not found. */
const pristineClusterFile = (): string | undefined => {
  try {
    let dir = Path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"))
    while (!Fs.existsSync(Path.join(dir, "package.json"))) {
      const up = Path.dirname(dir)
      if (up === dir) return undefined
      dir = up
    }
    const { version } = JSON.parse(Fs.readFileSync(Path.join(dir, "package.json"), "utf8")) as { version: string }
    const nodeModules = Path.resolve(dir, "../..")
    if (Path.basename(nodeModules) !== "node_modules") return undefined
    return Path.join(nodeModules, ".cache", "pglite", `pristine-${version}-pg_trgm.tar`)
  } catch {
    return undefined
  }
}

/**
 * Start PGlite and serve it on 127.0.0.1 (ephemeral port). Used by the service when no
 * DATABASE_URL is given, and by tests that need a database other processes can reach. An
 * in-memory database starts from `image` when one is given (a data directory `dumpDataDir`
 * wrote: the tests' migrated template, test/support/TestServer.ts).
 */
export const startEmbedded = (dataDir: string | ":memory:", options?: { readonly image?: DataDirImage }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let dir: string | undefined
      if (dataDir !== ":memory:") {
        dir = Path.resolve(dataDir, "pg")
        Fs.mkdirSync(Path.dirname(dir), { recursive: true })
      }
      // Loaded here, not at start-up: a service on DATABASE_URL never needs PGlite in memory.
      const [{ PGlite }, { pg_trgm }, { PGLiteSocketServer }, { GroupedQueryQueue }] = await Promise.all([
        import("@electric-sql/pglite"),
        import("@electric-sql/pglite/contrib/pg_trgm"),
        import("@electric-sql/pglite-socket"),
        import("./PgliteQueue.js")
      ])
      const settings = {
        extensions: { pg_trgm },
        startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`]
      }
      const db = dir !== undefined
        ? await PGlite.create({ dataDir: dir, ...settings })
        : options?.image !== undefined
        ? await PGlite.create({ loadDataDir: options.image, ...settings })
        : await createInMemory((from) => PGlite.create({ ...from, ...settings }))
      // PGlite runs one statement at a time whatever the number of sockets, so connections are
      // cheap; the limit only has to exceed what every process sharing it may open (pools plus
      // the sessions singletons reserve). Over it, the server answers "Too many connections".
      const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 64 })
      ;(server as any).queryQueue = new GroupedQueryQueue(db) // seam: pglite-socket's private queue; keep each connection's messages together
      await server.start()
      const address = (server as any).server?.address?.() // seam: pglite-socket's private net.Server
      const port: number = typeof address === "object" && address
        ? address.port
        : Number(server.getServerConn().split(":").pop())
      return { db, server, host: "127.0.0.1", port }
    }),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop().catch(() => undefined)
        await db.close().catch(() => undefined)
      })
  )

/** Time limits of the pool; defaults are those of `DB_*_TIMEOUT` (docs/operations.md). */
export interface PoolTimeouts {
  readonly connectTimeout: Duration.DurationInput
  readonly acquireTimeout: Duration.DurationInput
  readonly statementTimeout: Duration.DurationInput
}

const defaultTimeouts: PoolTimeouts = {
  connectTimeout: "3 seconds",
  acquireTimeout: "5 seconds",
  statementTimeout: "5 seconds"
}

/**
 * A `pg.Client` that gives up on a connection whose statement ran past the client-side time limit
 * (`query_timeout`): the server stopped answering, so the connection is marked unusable and closed,
 * and the pool drops it on release instead of handing it to the next request. Without this a
 * database that stops answering leaves dead connections in the pool after it comes back.
 */
const clientClass = (connectTimeoutMs: number, cancellable: boolean) =>
  class OutageAwareClient extends pg.Client {
    constructor(config: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs })
      // @effect/sql-pg cancels an interrupted statement when the client knows its backend pid
      // (PostgreSQL: a CancelRequest, PgCancel.ts). PGlite has one backend and cannot cancel, and
      // behind pglite-socket a cancel waits for the very transaction it targets to end, so an
      // interrupted fiber (shutdown) stalled for the cancel's 5 s limit per statement. Embedded:
      // no pid, no cancel; the statement finishes (nothing else runs meanwhile) and the
      // transaction is rolled back after it.
      if (!cancellable) Object.defineProperty(this, "processID", { get: () => undefined, set: () => undefined })
    }
    override query(...args: Array<any>): any {
      const last = args.length - 1
      if (typeof args[last] === "function") {
        const callback = args[last]
        args[last] = (err: Error | null, result: unknown) => {
          if (err && /Query read timeout/.test(err.message)) {
            ;(this as any)._queryable = false // seam: pg's private flag; the pool drops a client that is not queryable
            this.connection?.stream?.destroy()
          }
          callback(err, result)
        }
      }
      return Reflect.apply(super.query, this, args)
    }
  }

/**
 * The pool, with connect, acquire and statement time limits, so a database that refuses or stops
 * answering turns into errors within seconds (answered 503 by `ApiErrorsLive`), never a hang.
 */
export const pgLayer = (
  options: { readonly url: Redacted.Redacted } | { readonly host: string; readonly port: number },
  maxConnections = 10,
  timeouts: PoolTimeouts = defaultTimeouts,
  /** An embedded PostgreSQL (PGlite): statements cannot be cancelled. Default: a host/port is embedded. */
  embedded: boolean = !("url" in options)
): Layer.Layer<PgClient.PgClient | import("@effect/sql").SqlClient.SqlClient, SqlError | DatabaseUnreachable> => {
  const statementMs = Duration.toMillis(timeouts.statementTimeout)
  const connectMs = Duration.toMillis(timeouts.connectTimeout)
  const connection = "url" in options
    ? { connectionString: Redacted.value(options.url) }
    : { host: options.host, port: options.port, user: "postgres", password: "postgres", database: "postgres" }
  // A starting process waits for its database for a while (a replica may start first, or the
  // machine is busy), but not for one it can never use (DatabaseReach.ts): that ends start-up.
  const reach = probeDatabase(connection, {
    setting: "url" in options ? "DATABASE_URL" : undefined,
    connectTimeoutMs: connectMs,
    statementMs
  })
  return Layer.unwrapEffect(Effect.as(
    reach,
    PgClient.layerFromPool({
      acquire: Effect.acquireRelease(
        Effect.sync(() => {
          // Cancels an interrupted statement on its own socket, not on a second pooled connection
          // that a pool full of interrupted fibers could never give it (PgCancel.ts, issue 30).
          const Pool = cancellingPool(connectMs)
          const pool = new Pool({
            ...connection,
            max: maxConnections,
            Client: clientClass(connectMs, !embedded) as unknown as typeof pg.Client,
            // pg-pool applies this to waiting for a free connection; the client class above sets
            // its own connect limit.
            connectionTimeoutMillis: Duration.toMillis(timeouts.acquireTimeout),
            // The server cancels a long statement (SQLSTATE 57014); the client stops waiting a
            // little later, for a server that does not answer at all.
            statement_timeout: statementMs,
            query_timeout: statementMs + 500,
            keepAlive: true,
            idleTimeoutMillis: 30_000,
            application_name: "domain-marketplace",
            types
          })
          // Errors of idle clients (the server went away) only remove them from the pool.
          pool.on("error", () => undefined)
          registerPool(pool) // its usage is reported by GET /metrics
          return pool
        }),
        (pool) =>
          Effect.sync(() => unregisterPool(pool)).pipe(
            // `interruptible`: a release runs uninterruptibly, where a time limit cannot interrupt
            // the wait and so never fires; pool.end() waits for every checked-out client, and one
            // that was never released would hold the shutdown for ever.
            Effect.zipRight(
              Effect.promise(() => pool.end().catch(() => undefined)).pipe(
                Effect.interruptible,
                Effect.timeoutOption(1000)
              )
            )
          )
      ),
      applicationName: "domain-marketplace",
      types
    })
  ))
}

/** The service's pool on an embedded PostgreSQL: PGlite runs one statement at a time, a small pool is all it can use. */
export const embeddedPool = (embedded: { readonly host: string; readonly port: number }, timeouts: PoolTimeouts) =>
  pgLayer({ host: embedded.host, port: embedded.port }, 8, timeouts)

/**
 * The database: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR, whose directory one
 * process at a time may open (DataDirLock). The service takes the lock, or refuses to start when
 * another live process holds it. With `join` (the operator CLI), a DATA_DIR held by a running
 * service is not opened a second time: the CLI connects to the socket that service serves it on,
 * so its writes land in the database the service uses; it refuses when it cannot.
 */
export const databaseLayer = (options: { readonly join: boolean }) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const config = yield* AppConfig
      if (Option.isSome(config.databaseUrl)) {
        return pgLayer({ url: config.databaseUrl.value }, 10, config.database)
      }
      if (config.dataDir !== ":memory:" && options.join) {
        const owner = yield* DataDirLock.ownerOf(config.dataDir)
        if (owner !== undefined) {
          if (owner.host === null || owner.port === null) {
            return yield* new DataDirLock.DataDirBusy({
              dataDir: config.dataDir,
              owner,
              message:
                `DATA_DIR ${
                  Path.resolve(config.dataDir)
                } is held by process ${owner.pid}, which does not serve its database (yet): ` +
                "nothing was written. Try again once the service is up, or stop it first."
            })
          }
          yield* Effect.logDebug("joining the embedded PostgreSQL of the running service").pipe(
            Effect.annotateLogs({ pid: owner.pid, port: owner.port })
          )
          return pgLayer({ host: owner.host, port: owner.port }, 2, config.database)
        }
      }
      const lock = config.dataDir === ":memory:" ? undefined : yield* DataDirLock.hold(config.dataDir)
      const embedded = yield* startEmbedded(config.dataDir === ":memory:" ? ":memory:" : config.dataDir)
      if (lock !== undefined) yield* DataDirLock.publish(lock, embedded.host, embedded.port)
      yield* Effect.logInfo("embedded PostgreSQL started").pipe(
        Effect.annotateLogs({ port: embedded.port, dataDir: config.dataDir })
      )
      return embeddedPool(embedded, config.database)
    })
  )

/** The service's database: DATABASE_URL, or the embedded PostgreSQL (whose DATA_DIR it locks). */
export const DatabaseLive = databaseLayer({ join: false })
