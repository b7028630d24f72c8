/**
 * The scheduled settlement and payout runs start at boot. A server stopped while they are in
 * flight shuts down promptly (it used to hang for ever on the embedded database: a singleton's
 * reserved connection whose pending connect was interrupted was never released, and the pool's
 * shutdown waited for it), and what the interrupted run wrote is whole: the next run settles the
 * rest, each order once, and the books reconcile.
 *
 * Runs on both databases: the embedded one (the server's own PGlite, on a DATA_DIR so that a
 * second server can reopen it) and PostgreSQL when DATABASE_URL is set.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Scope } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import pg from "pg"
import { lockFileOf } from "../../../src/platform/db/DataDirLock.js"
import { post, realSleep, request } from "../../support/http.js"
import { deliveredOrders } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
/** Well above the shutdown grace (2 s in tests); the defect never finished at all. */
const PROMPT_MS = 20_000
/**
 * Closes a server's scope, failing after PROMPT_MS instead of waiting for ever (closing a scope is
 * uninterruptible; `disconnect` lets the test stop waiting while it goes on in the background).
 */
const stopWithin = (scope: Scope.CloseableScope) =>
  Effect.gen(function*() {
    const t0 = Date.now()
    const closed = yield* Scope.close(scope, Exit.void).pipe(
      Effect.disconnect,
      Effect.timeout(PROMPT_MS),
      Effect.option
    )
    const ms = Date.now() - t0
    expect(closed._tag === "Some" ? ms : `still stopping after ${ms} ms`).toBeLessThan(PROMPT_MS)
    return ms
  })
const SCHEDULES_OFF = { SETTLEMENT_INTERVAL: "0 millis", PAYOUT_INTERVAL: "0 millis" }
const SCHEDULES_ON = { SETTLEMENT_INTERVAL: "1 hour", PAYOUT_INTERVAL: "1 hour" }

/** A URL of the database from outside the server: PostgreSQL's, or the socket the embedded one is served on. */
const observerUrl = (databaseUrl: string | undefined, dataDir: string | undefined) => {
  if (databaseUrl) return databaseUrl
  try {
    const owner = JSON.parse(Fs.readFileSync(lockFileOf(dataDir!), "utf8"))
    return typeof owner.port === "number"
      ? `postgres://postgres:postgres@${owner.host}:${owner.port}/postgres`
      : undefined
  } catch {
    return undefined
  }
}

/** The settlement runs' state, seen by a connection of its own (opened when the database is reachable). */
const observer = () => {
  let client: pg.Client | undefined
  const state = (url: string | undefined) =>
    Effect.promise(async (): Promise<"none" | "running" | "finished"> => {
      if (!url) return "none"
      try {
        if (!client) {
          const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
          await c.connect()
          c.on("error", () => undefined)
          client = c
        }
        const { rows } = await client.query(
          "select count(*) filter (where finished_at is null)::int as running, count(*) filter (where finished_at is not null)::int as done from settlement_runs"
        )
        return rows[0].running > 0 ? "running" : rows[0].done > 0 ? "finished" : "none"
      } catch {
        await client?.end().catch(() => undefined)
        client = undefined
        return "none"
      }
    })
  const close = Effect.promise(async () => {
    await client?.end().catch(() => undefined)
    client = undefined
  })
  return { state, close }
}

layer(Layer.empty)("scheduled runs and shutdown", (it) => {
  it.scoped(
    "a server stopped while its boot-time settlement and payout runs are in flight shuts down promptly; the next run completes them, each order once",
    () =>
      Effect.gen(function*() {
        const embedded = !process.env.DATABASE_URL
        const databaseUrl = embedded ? undefined : (yield* TestServer.freshDatabase).url
        const dataDir = embedded ? Fs.mkdtempSync(Path.join(Os.tmpdir(), "ledger-shutdown-")) : undefined
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => dataDir && Fs.rmSync(dataDir, { recursive: true, force: true }))
        )
        // Due at once (no hold), so the boot-time run of the next server has work to do.
        const env = { SETTLEMENT_HOLD_DAYS: "0", ...(dataDir ? { DATA_DIR: dataDir } : {}) }
        const options = databaseUrl ? { databaseUrl } : undefined

        // 1. Delivered orders, written by a server whose schedules are off.
        const seeding = yield* Scope.make()
        const first = yield* Layer.buildWithScope(TestServer.layer({ ...env, ...SCHEDULES_OFF }, options), seeding)
        const ids = yield* deliveredOrders("stop", 10, 3, 20_000).pipe(Effect.provide(first))
        yield* Scope.close(seeding, Exit.void)

        // 2. A server with both schedules on: its boot settles them. Stop it as soon as the
        //    settlement run is seen in flight.
        const scope = yield* Scope.make()
        const booting = yield* Effect.fork(
          Layer.buildWithScope(TestServer.layer({ ...env, ...SCHEDULES_ON }, options), scope)
        )
        const watch = observer()
        let seen: "none" | "running" | "finished" = "none"
        for (const deadline = Date.now() + 120_000; seen === "none" && Date.now() < deadline;) {
          seen = yield* watch.state(observerUrl(databaseUrl, dataDir))
          if (seen === "none") yield* realSleep(5)
        }
        yield* watch.close
        yield* Fiber.interrupt(booting)
        const stoppedMs = yield* stopWithin(scope)
        console.log(`stopped in ${stoppedMs} ms; the settlement run at the stop: ${seen}`)
        expect(seen, "the stop came while the boot-time settlement run was in flight").toBe("running")

        // 3. The next server: what was written is whole; a run settles the rest, nothing twice.
        const after = yield* Layer.build(TestServer.layer({ ...env, ...SCHEDULES_OFF }, options))
        yield* Effect.gen(function*() {
          const verify = yield* request("/api/admin/ledger/verify", { headers: ADMIN })
          expect(verify.json.problems, verify.text).toEqual([])
          const run = yield* post("/api/admin/settlements/run", undefined, ADMIN)
          expect(run.status, run.text).toBe(200)
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ id: string; status: string; lines: number; postings: number; events: number }>`
          select o.id, o.status,
            (select count(*) from settlement_lines l where l.order_id = o.id)::int as lines,
            (select count(*) from ledger_transactions t where t.natural_key = 'order:' || o.id || ':settled')::int as postings,
            (select count(*) from partner_events e where e.type = 'order.settled' and e.data->'order'->>'public_id' = o.id)::int as events
          from partner_orders o where o.id in ${sql.in(ids)}`
          expect(rows).toHaveLength(ids.length)
          for (const r of rows) expect(r, r.id).toMatchObject({ status: "SETTLED", lines: 1, postings: 1, events: 1 })
          const [statements] = yield* sql<{ n: number }>`select count(*)::int as n from settlement_statements`
          expect(statements!.n).toBe(10)
          const again = yield* request("/api/admin/ledger/verify", { headers: ADMIN })
          expect(again.json.problems, again.text).toEqual([])
          expect(again.json.ok).toBe(true)
        }).pipe(Effect.provide(after))
      }),
    { timeout: 400_000 }
  )

  it.scoped(
    "servers stopped right after boot, schedules on, on an empty database: each stops promptly",
    () =>
      Effect.gen(function*() {
        for (let i = 0; i < 2; i++) {
          const scope = yield* Scope.make()
          yield* Layer.buildWithScope(TestServer.layer({ ...SCHEDULES_ON }), scope)
          if (i > 0) yield* realSleep(20)
          yield* stopWithin(scope)
        }
      }),
    { timeout: 400_000 }
  )
})
