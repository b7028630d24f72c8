/**
 * Settlement across processes on one database: two operator processes (and the admin endpoint)
 * settling at the same moment settle each order exactly once into one statement per partner;
 * a run killed with SIGKILL mid-way leaves whole statements only, and the next run completes it.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { cliEntry } from "../../support/BuiltApp.js"
import { runCli } from "../../support/cli.js"
import { post, request } from "../../support/http.js"
import { deliveredOrders } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
const DAY = 86_400_000

const expectSettledOnce = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ order_id: string; n: number; status: string; events: number; postings: number }>`
      select o.id as order_id, (select count(*) from settlement_lines l where l.order_id = o.id)::int as n, o.status,
        (select count(*) from partner_events e where e.type = 'order.settled' and e.data->'order'->>'public_id' = o.id)::int as events,
        (select count(*) from ledger_transactions t where t.natural_key = 'order:' || o.id || ':settled')::int as postings
      from partner_orders o where o.id in ${sql.in(ids as Array<string>)}`
    expect(rows).toHaveLength(ids.length)
    for (const r of rows) expect(r, r.order_id).toMatchObject({ n: 1, status: "SETTLED", events: 1, postings: 1 })
  })

/** The same reconciliation as `ledger verify`, through the admin endpoint (no extra process start). */
const verifyOverHttp = Effect.gen(function*() {
  const r = yield* request("/api/admin/ledger/verify", { headers: ADMIN })
  expect(r.json.problems, r.text).toEqual([])
})

layer(Layer.empty)("settlement across processes", (it) => {
  it.scoped(
    "two CLI processes and the admin endpoint at once: each order settled once, one statement per partner; verify passes",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        const server = yield* Layer.build(TestServer.layer({ SETTLEMENT_INTERVAL: "0 seconds" }, { databaseUrl }))
        const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, server) as Effect.Effect<A, E>
        const ids = yield* run(deliveredOrders("dup", 3, 4))
        const asOf = new Date(Date.now() + 8 * DAY).toISOString()
        const [a, b, c] = yield* Effect.all([
          runCli(databaseUrl, ["settle", "--as-of", asOf, "--json"]),
          runCli(databaseUrl, ["settle", "--as-of", asOf, "--json"]),
          run(post(`/api/admin/settlements/run?as_of=${encodeURIComponent(asOf)}`, undefined, ADMIN))
        ], { concurrency: 3 })
        expect(a.code, a.stderr).toBe(0)
        expect(b.code, b.stderr).toBe(0)
        expect(c.status, c.text).toBe(200)
        const results = [JSON.parse(a.stdout), JSON.parse(b.stdout), c.json]
        expect(results.reduce((n, r) => n + r.orders_settled, 0)).toBe(ids.length)
        expect(results.reduce((n, r) => n + r.statements.length, 0)).toBe(3)
        yield* run(expectSettledOnce(ids))
        const verify = yield* runCli(databaseUrl, ["ledger", "verify", "--json"])
        expect(verify.code, verify.stdout + verify.stderr).toBe(0)
        expect(JSON.parse(verify.stdout).ok).toBe(true)
      }),
    { timeout: 300_000 }
  )

  it.scoped(
    "kill -9 during a run: statements are whole; the next run settles the rest, nothing twice",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        const server = yield* Layer.build(TestServer.layer({ SETTLEMENT_INTERVAL: "0 seconds" }, { databaseUrl }))
        const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, server) as Effect.Effect<A, E>
        const ids = yield* run(deliveredOrders("kill", 8, 3))
        const asOf = new Date(Date.now() + 8 * DAY).toISOString()
        const child = spawn(process.execPath, [...cliEntry(), "settle", "--as-of", asOf, "--json"], {
          env: { ...process.env, ...TestServer.baseEnv, LOG_LEVEL: "warn", DATABASE_URL: databaseUrl },
          stdio: "ignore"
        })
        // Kill it as soon as its run has started (or when it is done, if it was quicker than us).
        const sql = yield* run(SqlClient.SqlClient)
        for (let i = 0; i < 600 && child.exitCode === null; i++) {
          const [r] = yield* run(sql<{ n: number }>`select count(*)::int as n from settlement_runs`)
          if (r!.n > 0) break
          yield* Effect.sleep("20 millis")
        }
        child.kill("SIGKILL")
        yield* Effect.async<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
        })
        // Whatever was written is whole: every statement equals its lines.
        yield* run(verifyOverHttp)
        const again = yield* runCli(databaseUrl, ["settle", "--as-of", asOf, "--json"])
        expect(again.code, again.stderr).toBe(0)
        yield* run(expectSettledOnce(ids))
        const [statements] = yield* run(sql<{ n: number }>`select count(*)::int as n from settlement_statements`)
        expect(statements!.n).toBe(8)
        yield* run(verifyOverHttp)
      }),
    { timeout: 300_000 }
  )
})
