import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pgLayer } from "../../../src/platform/db/Database.js"
import { migrationsDir, runMigrations } from "../../../src/platform/db/Migrations.js"
import { sharedDatabaseUrl } from "../../support/TestServer.js"

// On the embedded database the first replica's migration transaction holds its one backend, so
// the others' connections are only accepted once it ends: seconds on a loaded machine, more than
// the service's 3 s connect limit. The test is about who applies what, not about those limits.
const replica = (url: string) =>
  pgLayer({ url: Redacted.make(url) }, 4, {
    connectTimeout: "60 seconds",
    acquireTimeout: "60 seconds",
    statementTimeout: "60 seconds"
  })

const migrationCount = Fs.readdirSync(migrationsDir).filter((f) => /^\d+_[^.]+\.(ts|js)$/.test(f)).length

describe("migrations", () => {
  it.scopedLive("three replicas starting at once apply each migration exactly once", () =>
    Effect.gen(function*() {
      const url = yield* sharedDatabaseUrl
      const [a, b, c] = yield* Effect.all(
        [1, 2, 3].map(() => runMigrations().pipe(Effect.provide(replica(url)))),
        { concurrency: 3 }
      )
      // Together they applied everything once; the others found nothing to do.
      expect(a.length + b.length + c.length).toBe(migrationCount)
      expect([a, b, c].filter((applied) => applied.length > 0)).toHaveLength(1)

      const rows = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ migration_id: number }>`select migration_id from schema_migrations order by migration_id`
      }).pipe(Effect.provide(replica(url)))
      expect(rows).toHaveLength(migrationCount)
      expect(new Set(rows.map((r) => r.migration_id)).size).toBe(migrationCount)

      // Running again is a no-op.
      expect(yield* runMigrations().pipe(Effect.provide(replica(url)))).toEqual([])
    }), { timeout: 120_000 })

  it.scopedLive(
    "an up-to-date database costs one read: no transaction, so no wait for another replica's lock",
    () =>
      Effect.gen(function*() {
        const url = yield* sharedDatabaseUrl
        const context = yield* Layer.build(replica(url))
        yield* runMigrations().pipe(Effect.provide(context))
        // Counts what runMigrations asks of the client: statements (calls) and transactions.
        const sql = Context.get(context, SqlClient.SqlClient)
        let statements = 0
        let transactions = 0
        const counted = new Proxy(sql, {
          apply: (target, self, args) => {
            statements++
            return Reflect.apply(target, self, args)
          },
          get: (target, key) => {
            if (key === "withTransaction") transactions++
            return Reflect.get(target, key)
          }
        })
        const applied = yield* runMigrations().pipe(Effect.provideService(SqlClient.SqlClient, counted))
        expect(applied).toEqual([])
        // The locked path is a transaction (lock, table, ids, each missing migration): on PostgreSQL
        // it would poll while another replica migrates; PGlite's one backend would not show it.
        expect({ statements, transactions }).toEqual({ statements: 1, transactions: 0 })
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "a migration numbered below the applied ones is still applied (the up-to-date check compares ids, not the latest)",
    () =>
      Effect.gen(function*() {
        const url = yield* sharedDatabaseUrl
        // Inside the project so that the migration files resolve "effect" and "@effect/sql".
        const dir = Fs.mkdtempSync(Path.join(migrationsDir, "..", "node_modules", ".cache", "migrations-test-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
        const write = (name: string) =>
          Fs.writeFileSync(
            Path.join(dir, name),
            `import { SqlClient } from "@effect/sql"\nimport { Effect } from "effect"\n` +
              `export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql\`create table t_${
                name.slice(0, 4)
              } (id int)\`)\n`
          )
        write("9001_a.js")
        write("9003_c.js")
        expect(yield* runMigrations(dir).pipe(Effect.provide(replica(url)))).toEqual(["9001_a", "9003_c"])
        expect(yield* runMigrations(dir).pipe(Effect.provide(replica(url)))).toEqual([])
        write("9002_b.js")
        expect(yield* runMigrations(dir).pipe(Effect.provide(replica(url)))).toEqual(["9002_b"])
      }),
    { timeout: 120_000 }
  )
})
