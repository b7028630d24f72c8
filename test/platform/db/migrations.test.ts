import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Fs from "node:fs"
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
})
