/**
 * The service under test: the real `AppLive` on an ephemeral port of 127.0.0.1, over a real,
 * private database.
 *
 * - `DATABASE_URL` set (CI sets it to the local PostgreSQL): a fresh database is created per
 *   server (`test_<random>`) and dropped afterwards, so test files never see each other's rows.
 *   It is copied from a template the migrations were applied to once (`test_tpl_<fingerprint of
 *   the migration files>`, built by the first server that needs it), so a server's start-up finds
 *   its schema current instead of applying every migration again (about half a second a server).
 *   `freshDatabase` and `sharedDatabaseUrl` stay empty: tests of migrations and of processes
 *   starting on a new database use those.
 * - unset: an in-memory embedded PostgreSQL (PGlite), private to the server. It starts from an
 *   image of a migrated cluster (`migratedImage`, made once per test worker), given to the
 *   service as its database layer, so here too a start-up finds its schema current; a test that
 *   sets DATA_DIR gets the service's own embedded database.
 *
 * Usage with @effect/vitest:
 *
 *   layer(TestServer.layer({ RATE_LIMITS: '{"pricing_tld":3}' }))("pricing", (it) => {
 *     it.effect("…", () => Effect.gen(function*() {
 *       const res = yield* get("/api/pricing/tld?tld=com")
 *     }))
 *   })
 */
import { HttpServer } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { Clock, ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import pg from "pg"
import { AppLive } from "../../src/app/Server.js"
import { AppConfig } from "../../src/platform/Config.js"
import {
  type DatabaseLive,
  DataDirImage,
  embeddedPool,
  pgLayer,
  startEmbedded
} from "../../src/platform/db/Database.js"
import { migrationsDir, runMigrations } from "../../src/platform/db/Migrations.js"
import { PASSWORD_HASH_COST, PASSWORD_HASH_COSTS } from "../../src/platform/security/Crypto.js"

export interface TestServerShape {
  readonly baseUrl: string
  readonly port: number
  /** The database URL this server uses (reachable by other processes, e.g. the CLI). */
  readonly databaseUrl: string | undefined
}

export class TestServer extends Context.Tag("test/TestServer")<TestServer, TestServerShape>() {}

const databaseUrlOf = (admin: string, name: string) => {
  const url = new URL(admin)
  url.pathname = `/${name}`
  return url.toString()
}

/** The migration files' fingerprint: a template is only used by runs with the same migrations. */
const migrationsFingerprint = () => {
  const hash = createHash("sha256")
  for (const file of Fs.readdirSync(migrationsDir).sort()) {
    hash.update(file).update(Fs.readFileSync(Path.join(migrationsDir, file)))
  }
  return hash.digest("hex").slice(0, 16)
}

let template: Promise<string> | undefined

/**
 * The migrated template's name, built once per test worker when missing: migrations applied to a
 * database of a temporary name, which is then renamed (so no server copies a half-migrated one;
 * when another worker renamed its own first, this one's copy is dropped).
 */
const migratedTemplate = (admin: string): Promise<string> =>
  template ??= (async () => {
    const name = `test_tpl_${migrationsFingerprint()}`
    const client = new pg.Client({ connectionString: admin })
    await client.connect()
    try {
      if ((await client.query("select 1 from pg_database where datname = $1", [name])).rowCount) return name
      const building = `${name}_${randomBytes(4).toString("hex")}`
      await client.query(`create database ${building}`)
      await Effect.runPromise(
        runMigrations().pipe(Effect.provide(pgLayer({ url: Redacted.make(databaseUrlOf(admin, building)) }, 2)))
      )
      await client.query(`alter database ${building} rename to ${name}`).catch(() =>
        client.query(`drop database if exists ${building} with (force)`)
      )
      return name
    } catch (error) {
      template = undefined
      throw error
    } finally {
      await client.end()
    }
  })()

let image: Promise<DataDirImage> | undefined

/** The data directory of an in-memory PGlite with every migration applied; made once per test worker. */
const migratedImage = (): Promise<DataDirImage> =>
  image ??= Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const embedded = yield* startEmbedded(":memory:")
    yield* runMigrations().pipe(Effect.provide(pgLayer({ host: embedded.host, port: embedded.port }, 2)))
    return yield* Effect.promise(() => DataDirImage.dump(embedded.db))
  }))).catch((error) => {
    image = undefined
    throw error
  })

/** The service's embedded database, from the migrated image, with the service's pool settings. */
const embeddedFromImage: typeof DatabaseLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const embedded = yield* startEmbedded(":memory:", { image: yield* Effect.promise(migratedImage) })
    const config = yield* AppConfig
    return embeddedPool(embedded, config.database)
  })
)

const dropDatabase = (name: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL! })
    await client.connect()
    await client.query(`drop database if exists ${name} with (force)`).catch(() => undefined)
    await client.end()
  })

/**
 * A private PostgreSQL database for one test scope, dropped at its end; returns its URL. Copied
 * from `template` when given (its name, made on demand from the admin URL), else empty.
 */
const privateDatabase = (template?: (admin: string) => Promise<string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const admin = process.env.DATABASE_URL!
      const from = template === undefined ? "" : ` template ${await template(admin)}`
      const name = `test_${randomBytes(6).toString("hex")}`
      const client = new pg.Client({ connectionString: admin })
      await client.connect()
      await client.query(`create database ${name}${from}`)
      await client.end()
      return { name, url: databaseUrlOf(admin, name) }
    }),
    ({ name }) => dropDatabase(name)
  )

/** A private, empty PostgreSQL database for one test scope; returns its URL. */
export const freshDatabase = privateDatabase()

/** A private PostgreSQL database for one test scope, with every migration applied; returns its URL. */
const migratedDatabase = privateDatabase(migratedTemplate)

/**
 * A database URL other processes can reach: a fresh PostgreSQL database when DATABASE_URL is
 * set, else an embedded PostgreSQL served on a loopback port by this test process.
 */
export const sharedDatabaseUrl = Effect.gen(function*() {
  if (process.env.DATABASE_URL) return (yield* freshDatabase).url
  const embedded = yield* startEmbedded(":memory:")
  return `postgres://postgres:postgres@${embedded.host}:${embedded.port}/postgres`
})

/** The scrypt cost (log2 N) of the tests' password hashes: the least the service accepts. */
export const TEST_PASSWORD_HASH_COST = PASSWORD_HASH_COSTS.least

export const baseEnv: Record<string, string> = {
  NODE_ENV: "test",
  PORT: "0",
  HOST: "127.0.0.1",
  LOG_LEVEL: "warn",
  SHUTDOWN_GRACE: "2 seconds",
  SHUTDOWN_DRAIN_DELAY: "0 millis",
  CATALOGUE_CACHE_TTL: "0 millis",
  ADMIN_TOKEN: "test-admin-token-0123456789abcdefgh",
  // scrypt at 2^10 instead of 2^15: a password hash in about 2 ms of CPU, not 75 (hundreds a run).
  PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
  SERVICE_SECRET: "test-service-key-0123456789abcdefghij",
  // The demo marketplace catalogue would otherwise appear on the embedded database only.
  DEMO_LISTINGS: "false",
  // Orders stay where a test moves them by hand; fulfilment's tests turn automatic delivery on.
  DELIVERY_AUTOSTART: "false",
  // No test leaves loopback: WHOIS and DNS go to a closed port unless a test starts its own
  // loopback server (TLDs without RDAP are asked of WHOIS, then DNS).
  WHOIS_REFERRAL_SERVER: "127.0.0.1",
  WHOIS_PORT: "9",
  DNS_RESOLVER: "127.0.0.1:9"
}

/**
 * The tests' environment: `baseEnv`, then `env`. An environment with NODE_ENV=production keeps the
 * production password cost, as production refuses a cheaper one (src/identity/Settings.ts).
 */
export const withBaseEnv = <V extends string | undefined>(env: Record<string, V>): Record<string, string | V> => ({
  ...baseEnv,
  ...(env.NODE_ENV === "production" ? { PASSWORD_HASH_COST: String(PASSWORD_HASH_COST) } : {}),
  ...env
})

/**
 * Builds the whole service. `env` overrides configuration (same names as the environment);
 * `databaseUrl` shares a database between servers (multi-replica tests).
 */
const make = (env: Record<string, string> = {}, options?: { readonly databaseUrl?: string }) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const databaseUrl = options?.databaseUrl ?? (process.env.DATABASE_URL ? (yield* migratedDatabase).url : undefined)
      const map = new Map(Object.entries(withBaseEnv({
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: ":memory:" }),
        ...env
      })))
      const fromImage = !map.has("DATABASE_URL") && map.get("DATA_DIR") === ":memory:"
      const app = AppLive(ConfigProvider.fromMap(map), fromImage ? { database: embeddedFromImage } : undefined)
      const server = Layer.effect(
        TestServer,
        Effect.map(HttpServer.HttpServer, (s) => {
          const port = s.address._tag === "TcpAddress" ? s.address.port : 0
          return { baseUrl: `http://127.0.0.1:${port}`, port, databaseUrl }
        })
      )
      // The service runs on real time (rate-limit windows, token lifetimes, staleness), whatever
      // clock the test runner gives the test fibers.
      return Layer.provideMerge(server, app).pipe(Layer.provide(Layer.setClock(Clock.make())))
    })
  )

export const layer = (env?: Record<string, string>, options?: { readonly databaseUrl?: string }) =>
  make(env, options) as Layer.Layer<TestServer | SqlClient.SqlClient | HttpServer.HttpServer>
