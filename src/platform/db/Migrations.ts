/**
 * Forward-only migrations from the top-level `migrations/` folder (`NNNN_name.ts`, default export
 * an `Effect` using `SqlClient`).
 *
 * Safe when several replicas start at once: everything runs in one transaction holding a
 * transaction-scoped advisory lock, so the second replica waits (polling for the lock every
 * 200 ms), then finds nothing to do.
 * Unlike a "latest id" migrator, every migration not yet recorded is applied, so migrations
 * added by parallel branches with lower numbers are never skipped.
 *
 * Contract: when every migration file is already recorded, start-up costs one statement (the
 * recorded ids), no transaction and no lock; only a database missing one takes the locked path.
 * On the embedded database the locked path cost 0.2–0.3 s of a warm start (issue 35, item 6).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Predicate, Schedule, Schema } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const MIGRATIONS_LOCK = 7_340_001

export const migrationsDir = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../migrations")

interface MigrationFile {
  readonly id: number
  readonly name: string
  readonly file: string
}

const listMigrations = (dir: string): ReadonlyArray<MigrationFile> =>
  Fs.readdirSync(dir)
    .flatMap((file) => {
      const m = /^(\d+)_([^.]+)\.(ts|js)$/.exec(file)
      return m && !file.endsWith(".d.ts") ? [{ id: Number(m[1]), name: m[2], file: Path.join(dir, file) }] : []
    })
    .sort((a, b) => a.id - b.id)

export const runMigrations = (dir: string = migrationsDir) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const files = listMigrations(dir)
    const ids = new Set<number>()
    for (const f of files) {
      if (ids.has(f.id)) return yield* Effect.dieMessage(`duplicate migration id ${f.id}`)
      ids.add(f.id)
    }
    const appliedIds = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ migration_id: Schema.Number }),
      execute: () => sql`select migration_id from schema_migrations`
    })
    // Up to date: nothing to wait for. Any error (no table yet) takes the locked path, which
    // creates it; a migration recorded by another replica meanwhile is skipped there as well.
    const recorded = yield* appliedIds(undefined).pipe(
      Effect.map((rows) => new Set(rows.map((r) => r.migration_id))),
      Effect.orElseSucceed(() => new Set<number>())
    )
    if (files.length > 0 && files.every((f) => recorded.has(f.id))) return [] as Array<string>
    const tryLock = SqlSchema.single({
      Request: Schema.Void,
      Result: Schema.Struct({ locked: Schema.Boolean }),
      execute: () => sql`select pg_try_advisory_xact_lock(${MIGRATIONS_LOCK}) as locked`
    })
    return yield* sql.withTransaction(
      Effect.gen(function*() {
        // Poll rather than block: a replica waiting on another's migrations must not sit in one
        // statement that the statement time limit (DB_STATEMENT_TIMEOUT) would cancel.
        yield* tryLock(undefined).pipe(
          Effect.flatMap((row) => row.locked ? Effect.void : Effect.fail("busy" as const)),
          Effect.retry({ while: (e) => e === "busy", schedule: Schedule.spaced("200 millis") })
        )
        yield* sql`create table if not exists schema_migrations (
          migration_id integer primary key,
          name text not null,
          applied_at timestamptz not null default now()
        )`
        const done = new Set((yield* appliedIds(undefined)).map((r) => r.migration_id))
        const applied: Array<string> = []
        for (const m of files) {
          if (done.has(m.id)) continue
          const mod = yield* Effect.promise(() => import(pathToFileURL(m.file).href))
          const migration = mod.default
          if (!Effect.isEffect(migration)) return yield* Effect.dieMessage(`migration ${m.file} has no default Effect`)
          yield* (migration as Effect.Effect<unknown, unknown, SqlClient.SqlClient>).pipe(
            Effect.orDieWith((e) =>
              new Error(
                `migration ${m.id}_${m.name} failed: ${
                  String((Predicate.hasProperty(e, "message") ? e.message : undefined) ?? e)
                }`
              )
            )
          )
          yield* sql`insert into schema_migrations (migration_id, name) values (${m.id}, ${m.name})`
          applied.push(`${m.id}_${m.name}`)
        }
        return applied
      })
    )
  }).pipe(
    Effect.tap((applied) =>
      applied.length > 0 ? Effect.logInfo("migrations applied").pipe(Effect.annotateLogs({ applied })) : Effect.void
    ),
    Effect.withSpan("migrations")
  )
